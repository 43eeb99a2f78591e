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

    /**
     * Writes a keystore with an EC key and a certificate for localhost and 127.0.0.1, valid ten years, and the
     * certificate alone in PEM beside it ({@link #certificate}), for clients to trust ({@code mosquitto_rr --cafile}).
     */
    public static void selfSigned(Path file, String password) throws IOException, InterruptedException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        keytool(file, "-genkeypair", "-alias", ALIAS, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1", "-validity", "3650", "-storetype", "PKCS12",
                "-keystore", file.toString(), "-storepass", password, "-keypass", password);
        keytool(file, "-exportcert", "-rfc", "-alias", ALIAS, "-keystore", file.toString(), "-storepass", password,
                "-file", certificate(file).toString());
    }

    /** Where {@link #selfSigned} puts the certificate: the keystore's name with .pem for .p12. */
    public static Path certificate(Path keystore) {
        String name = keystore.getFileName().toString();
        return keystore.resolveSibling(name.replaceFirst("\\.p12$", "") + ".pem");
    }

    private static final String ALIAS = "ckc-gateway";

    /** Runs the JDK's keytool, for {@code file}; fails with what it printed. */
    static void keytool(Path file, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool could not make " + file + ": " + output);
        }
    }
}
