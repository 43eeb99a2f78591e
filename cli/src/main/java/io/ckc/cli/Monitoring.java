package io.ckc.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Prometheus (Debian's package) with the scrape configuration of record ({@code monitoring/prometheus}),
 * over this host's gateways and every Flink reporter port that answers.
 */
final class Monitoring {

    static final int PORT = 9090;
    static final String URL = "http://127.0.0.1:" + PORT;
    /** Flink's Prometheus reporter takes the first free port of this range per process. */
    private static final List<Integer> FLINK_METRICS_PORTS = IntStream.rangeClosed(9249, 9259).boxed().toList();

    private final Home home;
    private final Processes processes;

    Monitoring(Home home, Processes processes) {
        this.home = home;
        this.processes = processes;
    }

    void start(StackShape stack) {
        if (!Home.onPath("prometheus")) {
            if (!"root".equals(System.getProperty("user.name"))) {
                throw new Ckc.Failure("Prometheus is not installed: sudo apt-get install prometheus");
            }
            Ckc.say("installing Prometheus (apt-get install prometheus)...");
            Ckc.runOrFail("install prometheus", home.log("apt-prometheus"),
                    List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q", "prometheus"));
        }
        processes.stop("prometheus");
        Path dir = home.state.resolve("prometheus");
        try {
            Files.createDirectories(dir.resolve("targets"));
            Files.createDirectories(dir.resolve("data"));
            Files.copy(home.root.resolve("monitoring/prometheus/prometheus.yml"), dir.resolve("prometheus.yml"),
                    StandardCopyOption.REPLACE_EXISTING);
            List<String> gateways = stack.metricsAddresses();
            List<String> flink = FLINK_METRICS_PORTS.stream().filter(Processes::portOpen).map(p -> "127.0.0.1:" + p).toList();
            Files.writeString(dir.resolve("targets/ckc-gateway.json"), targets(gateways));
            Files.writeString(dir.resolve("targets/flink.json"), targets(flink));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        processes.start("prometheus", home.log("prometheus"), Map.of(), List.of("prometheus",
                "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
                "--storage.tsdb.retention.time=2d", "--web.listen-address=127.0.0.1:" + PORT));
        processes.awaitLog("prometheus", home.log("prometheus"), Monitoring::ready, Duration.ofSeconds(60),
                "answer on " + URL + "/-/ready");
        Ckc.say("Prometheus ready on " + URL);
    }

    static boolean ready() {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(URL + "/-/ready")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String targets(List<String> addresses) {
        return "[{\"targets\": [" + addresses.stream().map(a -> "\"" + a + "\"").collect(Collectors.joining(",")) + "]}]\n";
    }
}
