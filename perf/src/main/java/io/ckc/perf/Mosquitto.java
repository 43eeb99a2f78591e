package io.ckc.perf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A plain Mosquitto broker (the Debian package's {@code mosquitto}), started by a perf run as the MQTT baseline and
 * stopped with it: one listener on the loopback, anonymous clients, no persistence, and no limit on in-flight or
 * queued QoS 1 messages per client (CKC's gateway allows a device up to 1,024 in flight), Nagle off as on CKC's
 * gateway. Its log goes to {@code mosquitto.log} beside its configuration.
 */
final class Mosquitto implements AutoCloseable {

    private final Process process;
    private final InetSocketAddress address;

    private Mosquitto(Process process, InetSocketAddress address) {
        this.process = process;
        this.address = address;
    }

    /** Why {@code binary} cannot run here (not installed), or null when it can. */
    static String unavailable(String binary) {
        try {
            Process probe = new ProcessBuilder(binary, "-h").redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            probe.waitFor(10, TimeUnit.SECONDS);
            return null;
        } catch (IOException | InterruptedException e) {
            return binary + " cannot run (" + e.getMessage() + "): apt-get install mosquitto";
        }
    }

    /** Starts one on {@code port} with its files in {@code dir}; returns once it takes connections. */
    static Mosquitto start(String binary, int port, Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path config = dir.resolve("mosquitto.conf");
        Files.write(config, List.of(
                "listener " + port + " 127.0.0.1",
                "allow_anonymous true",
                "max_inflight_messages 0",
                "max_queued_messages 0",
                "set_tcp_nodelay true",
                "persistence false"));
        Process process = new ProcessBuilder(binary, "-c", config.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("mosquitto.log").toFile()).start();
        Mosquitto mosquitto = new Mosquitto(process, new InetSocketAddress("127.0.0.1", port));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("mosquitto exited with " + process.exitValue() + ": see " + dir.resolve("mosquitto.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(mosquitto.address, 200);
                return mosquitto;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        mosquitto.close();
        throw new IOException("mosquitto took no connection on port " + port + " within 20 s");
    }

    InetSocketAddress address() {
        return address;
    }

    int pid() {
        return (int) process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
