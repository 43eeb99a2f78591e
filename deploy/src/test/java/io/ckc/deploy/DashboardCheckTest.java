package io.ckc.deploy;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard check against a fake Prometheus whose answers each test chooses. */
class DashboardCheckTest {

    private HttpServer prometheus;
    private volatile Function<String, String> answer;

    @BeforeEach
    void start() throws Exception {
        prometheus = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        prometheus.createContext("/api/v1/query", exchange -> {
            String query = URLDecoder.decode(exchange.getRequestURI().getRawQuery().substring("query=".length()),
                    StandardCharsets.UTF_8);
            byte[] body = ("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" + answer.apply(query)
                    + "]}}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        prometheus.start();
    }

    @AfterEach
    void stop() {
        prometheus.stop(0);
    }

    private int check(Path dashboards, ByteArrayOutputStream output) throws Exception {
        for (var file : Dashboards.render().entrySet()) {
            Files.writeString(dashboards.resolve(file.getKey()), file.getValue());
        }
        DashboardCheck check = new DashboardCheck();
        check.prometheus = "http://127.0.0.1:" + prometheus.getAddress().getPort();
        check.dashboards = dashboards;
        check.out = new PrintStream(output, true, StandardCharsets.UTF_8);
        return check.call();
    }

    @Test
    void passesWhenEveryPanelHasData(@TempDir Path dashboards) throws Exception {
        answer = query -> "{\"metric\":{},\"value\":[1,\"0.5\"]}";
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        assertThat(check(dashboards, output)).isZero();
        assertThat(output.toString(StandardCharsets.UTF_8)).doesNotContain("EMPTY")
                .contains("with data, 0 empty");
    }

    @Test
    void failsOnAPanelWithoutSeriesOrWithOnlyNaN(@TempDir Path dashboards) throws Exception {
        answer = query -> query.contains("mtdDropped") ? ""
                : query.contains("histogram_quantile") ? "{\"metric\":{},\"value\":[1,\"NaN\"]}"
                : "{\"metric\":{},\"value\":[1,\"2\"]}";
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        assertThat(check(dashboards, output)).isEqualTo(1);
        String printed = output.toString(StandardCharsets.UTF_8);
        assertThat(printed).containsPattern("EMPTY +Expired and dropped \\[B]")
                .containsPattern("EMPTY +Ping round trip, p50 and p99 \\[A]")
                .containsPattern("ok +Connected nodes \\[A]");
    }
}
