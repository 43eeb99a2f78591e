package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * Runs every query of every dashboard in {@code monitoring/grafana/dashboards/} against a live
 * Prometheus and prints, panel by panel, how many series each returns. A query with no series is a
 * panel a person would see empty: the check fails. {@code ./ckc monitoring check} runs it against
 * the Prometheus of {@code ./ckc up --monitoring}.
 */
@Command(name = "dashboard-check", mixinStandardHelpOptions = true,
        description = "Run every Grafana panel's PromQL against a live Prometheus; fail on an empty panel.")
public final class DashboardCheck implements Callable<Integer> {

    @Option(names = "--prometheus", defaultValue = "http://127.0.0.1:9090", description = "Prometheus URL (default ${DEFAULT-VALUE})")
    String prometheus;

    @Option(names = "--dashboards", defaultValue = "monitoring/grafana/dashboards", description = "Folder of dashboard JSON files")
    Path dashboards;

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    PrintStream out = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new DashboardCheck()).execute(args));
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dashboards)) {
            files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        int queries = 0;
        int empty = 0;
        for (Path file : files) {
            JsonNode dashboard = json.readTree(file.toFile());
            out.println(dashboard.get("title").asText() + " (" + file.getFileName() + ")");
            for (JsonNode panel : dashboard.get("panels")) {
                for (JsonNode target : panel.get("targets")) {
                    String expr = target.get("expr").asText();
                    int series = series(expr);
                    queries++;
                    if (series == 0) {
                        empty++;
                    }
                    out.printf("  %-5s %-58s %3d series  %s%n", series > 0 ? "ok" : "EMPTY",
                            panel.get("title").asText() + " [" + target.get("refId").asText() + "]", series,
                            series > 0 ? "" : expr);
                }
            }
        }
        out.printf("%d queries on %d dashboards: %d with data, %d empty%n", queries, files.size(), queries - empty, empty);
        return empty == 0 && queries > 0 ? 0 : 1;
    }

    /** The number of series with a value (not NaN) that an instant query returns now. */
    int series(String expr) throws IOException, InterruptedException {
        URI uri = URI.create(prometheus + "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = json.readTree(response.body());
        if (response.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
            throw new IOException("Prometheus refused " + expr + ": " + body.path("error").asText(response.body()));
        }
        int withValue = 0;
        for (JsonNode series : body.at("/data/result")) {
            String value = series.at("/value/1").asText();
            if (!value.equals("NaN")) { // a quantile of no observations: the panel would draw nothing
                withValue++;
            }
        }
        return withValue;
    }
}
