package io.ckc.protocol.kafka;

import io.ckc.protocol.config.Setting;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * How every CKC process reaches Kafka: the bootstrap servers plus the cluster's client security
 * settings, so that gateways, jobs, SQL rules and tools work against a cluster with TLS, SASL/SCRAM
 * and ACLs.
 *
 * <p>The security settings are Kafka's own client properties ({@code security.protocol},
 * {@code ssl.*}, {@code sasl.*}) in the file that the environment variable
 * {@value #ENV} names, the same file {@code kafka-console-consumer --consumer.config} takes. Without
 * it, clients connect in plaintext. Any other key in the file is an error: tuning stays with the code
 * that owns each client, but for the one setting all CKC consumers share, {@link #FETCH_MAX_WAIT_MS}.
 */
public final class KafkaClientConfig {

    /** The environment variable naming the client security properties file. */
    public static final Setting SETTING = Setting.optional("CKC_KAFKA_CLIENT_CONFIG", "Kafka client security "
            + "settings (security.*, ssl.*, sasl.*, config.providers*) in a properties file, the format kafka-console-consumer "
            + "--consumer.config takes; any other key is refused");
    public static final String ENV = SETTING.name();

    /**
     * {@code fetch.max.wait.ms} of every CKC consumer. It does not delay a record: with
     * {@code fetch.min.bytes} 1 the broker answers a fetch as soon as one of its partitions has data.
     * It only says how often a consumer with nothing to read asks again, and each such fetch is broker
     * and client work: with 50 and 100 ms the idle stack's broker used 10.3% of a core, with 500 ms
     * 5.7%, and records came back as fast (perf/README.md, 2026-11-24).
     */
    public static final int FETCH_MAX_WAIT_MS = 500;

    /**
     * What a security file may set: besides security, ssl and sasl, Kafka's config providers, so that a secret stays in
     * the file Kubernetes mounts ({@code sasl.jaas.config=${dir:/etc/ckc/kafka-user:sasl.jaas.config}}).
     */
    private static final List<String> SECURITY_PREFIXES = List.of("security.", "ssl.", "sasl.", "config.providers");

    private KafkaClientConfig() {
    }

    /** The security properties from the file {@value #ENV} names in {@code env}; empty without it. */
    public static Properties security(Map<String, String> env) {
        String file = SETTING.string(env);
        return file == null ? new Properties() : security(Path.of(file), ENV);
    }

    /**
     * The security properties in {@code file}, which {@code source} (an environment variable or a flag) named: a
     * component of a process that hosts several (the embedded Flink's jobs) is given its own file by a flag.
     */
    public static Properties security(Path file, String source) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(source + " names " + file + ", which does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException(source + ": cannot read " + file + ": " + e.getMessage(), e);
        }
        for (String key : props.stringPropertyNames()) {
            if (SECURITY_PREFIXES.stream().noneMatch(key::startsWith)) {
                throw new IllegalArgumentException(source + " " + file + ": '" + key + "' is not a client security "
                        + "setting (security.*, ssl.*, sasl.*, config.providers*)");
            }
        }
        return props;
    }

    /** The security properties of this process's environment. */
    public static Properties security() {
        return security(System.getenv());
    }

    /** Properties for a producer, consumer or admin client: the bootstrap servers and this process's security. */
    public static Properties client(String bootstrap) {
        Properties props = security();
        props.put("bootstrap.servers", bootstrap);
        return props;
    }
}
