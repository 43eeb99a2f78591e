package io.ckc.perf;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The gateways' Prometheus metrics, read over HTTP by a measuring command: their samples, which it sums
 * ({@link PrometheusText#sum}) second by second.
 */
final class GatewayMetricsReader {

    private final HttpClient http = HttpClient.newHttpClient();
    private final List<URI> urls;

    /** @param urls each gateway's metrics URL, e.g. http://127.0.0.1:9400/metrics */
    GatewayMetricsReader(List<String> urls) {
        this.urls = urls.stream().map(URI::create).toList();
    }

    /** The samples of every gateway's metrics, one gateway after the other. */
    List<PrometheusText.Sample> read() throws IOException, InterruptedException {
        List<PrometheusText.Sample> all = new ArrayList<>();
        for (URI url : urls) {
            all.addAll(PrometheusText.parse(http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body()));
        }
        return all;
    }
}
