package io.ckc.gateway.mqtt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for the MQTT listeners' TLS, in a PKCS#12 keystore made by the JDK's keytool: for a
 * stack on one machine ({@code ./ckc up}) and for tests. A deployment brings its own certificate.
 */
public final class GatewayKeystore {

    private GatewayKeystore() {
    }

    /** Writes a keystore with an EC key and a certificate for localhost and 127.0.0.1, valid ten years. */
    public static void selfSigned(Path file, String password) throws IOException, InterruptedException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "ckc-gateway",
                "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "san=dns:localhost,ip:127.0.0.1", "-validity", "3650", "-storetype", "PKCS12",
                "-keystore", file.toString(), "-storepass", password, "-keypass", password))
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool could not make " + file + ": " + output);
        }
    }
}
