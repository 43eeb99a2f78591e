package io.ckc.gateway.mqtt;

import io.ckc.protocol.auth.SecretFiles;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.Base64;

/**
 * Client certificates for MQTT devices, made by the JDK's keytool: an authority whose certificate the gateways trust
 * ({@code CKC_TLS_CLIENT_CA}), and certificates it signs whose subject is a device's identity ({@code CN=<node id>}
 * or {@code CN=<fleet>/<node id>}). For a stack on one machine and for tests; a deployment may use its own PKI, as
 * long as the subject names the identity.
 */
public final class DeviceCertificates {

    private static final String AUTHORITY = "ckc-device-ca";
    private static final String DEVICE = "device";

    private DeviceCertificates() {
    }

    /**
     * Writes an authority's keystore (an EC key, a self-signed CA certificate valid ten years) and its certificate in
     * PEM beside it ({@link GatewayKeystore#certificate}): the file the gateways trust.
     */
    public static void authority(Path keystore, String password) throws IOException, InterruptedException {
        Files.createDirectories(keystore.toAbsolutePath().getParent());
        Files.deleteIfExists(keystore);
        GatewayKeystore.keytool(keystore, "-genkeypair", "-alias", AUTHORITY, "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=CKC device authority", "-ext", "bc:c", "-validity", "3650",
                "-storetype", "PKCS12", "-keystore", keystore.toString(), "-storepass", password, "-keypass",
                password);
        GatewayKeystore.keytool(keystore, "-exportcert", "-rfc", "-alias", AUTHORITY, "-keystore",
                keystore.toString(), "-storepass", password, "-file", GatewayKeystore.certificate(keystore).toString());
    }

    /**
     * Writes a device's keystore: an EC key and its certificate for {@code identity}, signed by the authority (valid
     * two years), with the authority's certificate in the chain; and, beside it, the certificate and the key in PEM
     * ({@link GatewayKeystore#certificate}, {@link #privateKey}) for clients that take files
     * ({@code mosquitto_pub --cert --key}); the key readable by its owner only.
     */
    public static void issue(Path authority, String authorityPassword, String identity, Path keystore,
                             String password) throws IOException, InterruptedException {
        Files.createDirectories(keystore.toAbsolutePath().getParent());
        Files.deleteIfExists(keystore);
        Path request = keystore.resolveSibling(keystore.getFileName() + ".csr");
        Path certificate = GatewayKeystore.certificate(keystore);
        try {
            GatewayKeystore.keytool(keystore, "-genkeypair", "-alias", DEVICE, "-keyalg", "EC", "-groupname",
                    "secp256r1", "-dname", "CN=" + identity, "-validity", "730", "-storetype", "PKCS12", "-keystore",
                    keystore.toString(), "-storepass", password, "-keypass", password);
            GatewayKeystore.keytool(keystore, "-certreq", "-alias", DEVICE, "-keystore", keystore.toString(),
                    "-storepass", password, "-file", request.toString());
            GatewayKeystore.keytool(keystore, "-gencert", "-rfc", "-alias", AUTHORITY, "-keystore",
                    authority.toString(), "-storepass", authorityPassword, "-infile", request.toString(), "-outfile",
                    certificate.toString(), "-validity", "730", "-ext", "eku=clientAuth");
            GatewayKeystore.keytool(keystore, "-importcert", "-noprompt", "-alias", AUTHORITY, "-file",
                    GatewayKeystore.certificate(authority).toString(), "-keystore", keystore.toString(), "-storepass",
                    password);
            GatewayKeystore.keytool(keystore, "-importcert", "-alias", DEVICE, "-file", certificate.toString(),
                    "-keystore", keystore.toString(), "-storepass", password, "-keypass", password);
        } finally {
            Files.deleteIfExists(request);
        }
        byte[] pem = privateKeyPem(keystore, password).getBytes(StandardCharsets.US_ASCII);
        SecretFiles.write(privateKey(keystore), out -> out.write(pem));
    }

    /** Where {@link #issue} puts the device's key in PEM: the keystore's name with -key.pem for .p12. */
    public static Path privateKey(Path keystore) {
        return keystore.resolveSibling(keystore.getFileName().toString().replaceFirst("\\.p12$", "") + "-key.pem");
    }

    /** The device key of a keystore {@link #issue} wrote, as PKCS#8 PEM. */
    private static String privateKeyPem(Path keystore, String password) throws IOException {
        try (InputStream in = Files.newInputStream(keystore)) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(in, password.toCharArray());
            Key key = keys.getKey(DEVICE, password.toCharArray());
            return "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the device key in " + keystore + ": " + e.getMessage(), e);
        }
    }
}
