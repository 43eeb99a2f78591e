package io.ckc.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The gateway's health, for probes, on its metrics port:
 * <ul>
 *   <li>{@code /health/live}: every event loop runs a task within {@link #LOOP_ANSWER}. A loop that does not is hung
 *       (a blocked handler, a deadlock) and serves none of its nodes: restart the gateway.</li>
 *   <li>{@code /health/ready}: live, and its Kafka producer is connected to a broker. A gateway cut off from Kafka
 *       should take no new nodes, which then go to another; it is not restarted for it (a broker that comes back finds
 *       its sessions kept, and what they sent waits in the producer).</li>
 * </ul>
 * 200 with {@code ok}, or 503 with what is wrong; 503 {@code starting} until the gateway has started.
 */
final class GatewayHealth implements HttpHandler {

    /** How long an event loop may take to run an empty task before it counts as hung. */
    static final Duration LOOP_ANSWER = Duration.ofSeconds(2);

    private volatile List<EventExecutor> loops;
    private volatile BooleanSupplier kafkaConnected;

    /** From now on, what the probes check: the gateway's event loops and whether Kafka is connected. */
    void watch(Iterable<EventExecutor> eventLoops, BooleanSupplier connected) {
        List<EventExecutor> all = new ArrayList<>();
        eventLoops.forEach(all::add);
        this.kafkaConnected = connected;
        this.loops = List.copyOf(all);
    }

    /** Whether a producer has a connection to a broker ({@code connection-count} of its own metrics). */
    static boolean connected(Producer<?, ?> producer) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("connection-count") && e.getKey().group().equals("producer-metrics"))
                .anyMatch(e -> e.getValue().metricValue() instanceof Double count && count > 0);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String problem;
        if (path.equals("/health/live")) {
            problem = liveProblem();
        } else if (path.equals("/health/ready")) {
            problem = readyProblem();
        } else {
            answer(exchange, 404, "not found: /metrics, /health/live, /health/ready");
            return;
        }
        answer(exchange, problem == null ? 200 : 503, problem == null ? "ok" : problem);
    }

    /** Null when every event loop answers; else what does not. */
    String liveProblem() {
        List<EventExecutor> watched = loops;
        if (watched == null) {
            return "starting";
        }
        List<Future<?>> answers = new ArrayList<>();
        for (EventExecutor loop : watched) {
            answers.add(loop.submit(() -> { }));
        }
        long deadline = System.nanoTime() + LOOP_ANSWER.toNanos();
        for (int i = 0; i < answers.size(); i++) {
            long left = Math.max(0, deadline - System.nanoTime());
            if (!answers.get(i).awaitUninterruptibly(left / 1_000_000)) {
                return "event loop " + i + " of " + answers.size() + " did not answer within " + LOOP_ANSWER.toMillis()
                        + " ms";
            }
        }
        return null;
    }

    /** Null when live and connected to Kafka; else what is wrong. */
    String readyProblem() {
        String live = liveProblem();
        if (live != null) {
            return live;
        }
        return kafkaConnected.getAsBoolean() ? null : "no connection to Kafka";
    }

    private static void answer(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
