package io.ckc.perf;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** The gateways' Prometheus metrics, read over HTTP by a measuring command: the sums it compares second by second. */
final class GatewayMetricsReader {

    private final HttpClient http = HttpClient.newHttpClient();
    private final List<URI> urls;

    /** @param urls each gateway's metrics URL, e.g. http://127.0.0.1:9400/metrics */
    GatewayMetricsReader(List<String> urls) {
        this.urls = urls.stream().map(URI::create).toList();
    }

    /** The metrics text of every gateway, one after the other. */
    String read() throws IOException, InterruptedException {
        StringBuilder all = new StringBuilder();
        for (URI url : urls) {
            all.append(http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body()).append('\n');
        }
        return all.toString();
    }

    /** The sum of a Prometheus text exposition's samples of {@code name} whose labels contain {@code label}. */
    static double sum(String exposition, String name, String label) {
        double total = 0;
        for (String line : exposition.split("\n")) {
            if ((line.startsWith(name + "{") || line.startsWith(name + " ")) && line.contains(label)) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }
}
