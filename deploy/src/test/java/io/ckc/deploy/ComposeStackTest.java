package io.ckc.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ckc.testing.Await;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.wait.strategy.Wait;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compose file, started for real where a Docker engine runs: images built from docker/Dockerfile,
 * Kafka, topics, Flink with the jobs submitted, gateways and Prometheus. Where there is no engine (this
 * project's build machine) it is reported as skipped, with the reason, never as passed.
 */
class ComposeStackTest {

    @Test
    void theComposeFileRunsTheWholeSystem() throws Exception {
        Assumptions.assumeTrue(DockerClientFactory.instance().isDockerAvailable(),
                "no Docker engine here: the images are not built or started (ComposeFileTest checks the files)");
        HttpClient http = HttpClient.newHttpClient();
        ObjectMapper json = new ObjectMapper();
        try (ComposeContainer stack = new ComposeContainer(ProjectFiles.ROOT.resolve("docker/compose.yaml").toFile())
                .withBuild(true).withEnv("MAVEN_ARGS", "-DskipTests")
                .withExposedService("jobmanager", 8081, Wait.forHttp("/overview").withStartupTimeout(Duration.ofMinutes(5)))
                .withExposedService("gateway-1", 9400, Wait.forHttp("/metrics").withStartupTimeout(Duration.ofMinutes(5)))
                .withExposedService("prometheus", 9090, Wait.forHttp("/-/ready"))) {
            stack.start();
            String flink = "http://" + stack.getServiceHost("jobmanager", 8081) + ":" + stack.getServicePort("jobmanager", 8081);
            Await.until("the job catalog's jobs running on the compose Flink", 300, () -> {
                try {
                    JsonNode jobs = json.readTree(http.send(HttpRequest.newBuilder(URI.create(flink + "/jobs/overview")).build(),
                            HttpResponse.BodyHandlers.ofString()).body()).get("jobs");
                    int running = 0;
                    for (JsonNode job : jobs) {
                        running += job.get("state").asText().equals("RUNNING") ? 1 : 0;
                    }
                    return running >= 4;
                } catch (java.io.IOException | InterruptedException e) {
                    return false;
                }
            });
            String metrics = "http://" + stack.getServiceHost("gateway-1", 9400) + ":" + stack.getServicePort("gateway-1", 9400) + "/metrics";
            String body = http.send(HttpRequest.newBuilder(URI.create(metrics)).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(body).contains("ckc_gateway_sessions{gateway=\"gw-1\"}");
        }
    }
}
