package io.ckc.deploy;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the upstream images that CKC's containers run on do with their files, as read in their own
 * Dockerfiles and entrypoints: the user a container runs as, the directories that user owns, the files
 * the entrypoint rewrites at start, and where a stateful service keeps its data. The container checks
 * ({@link ContainerStateTest}) hold CKC's Dockerfile and compose file against these.
 *
 * @param user        the user the image runs as
 * @param ownedDirs   directories that exist in the image and belong to (or are writable by) that user;
 *                    what lies below them too
 * @param rewritten   files the entrypoint writes at every start
 * @param dataSetting the environment variable that moves the data directory, or null
 * @param dataDefault the data directory without it, or null for a stateless image
 */
record ImageFacts(String image, String user, List<String> ownedDirs, List<String> rewritten, String dataSetting,
                  String dataDefault) {

    /**
     * Sources: apache/flink-docker 2.2/scala_2.12-java17-ubuntu (Dockerfile: uid 9999 {@code flink},
     * {@code chown -R flink:flink /opt/flink}, {@code USER flink}; docker-entrypoint.sh: {@code
     * config-parser-utils.sh} writes conf/config.yaml with the rpc address and FLINK_PROPERTIES);
     * apache/kafka docker/jvm/Dockerfile ({@code USER appuser}, {@code /var/lib/kafka/data} made
     * writable for it and declared a VOLUME; server.properties' {@code log.dirs} is
     * /tmp/kraft-combined-logs unless KAFKA_LOG_DIRS says otherwise); prom/prometheus ({@code USER
     * nobody}, data in /prometheus); grafana/grafana ({@code USER 472}, data in /var/lib/grafana);
     * eclipse-temurin and busybox run as root; zookeeper (the library image, 31z4/zookeeper-docker 3.9.3: its entrypoint, started
     * as root, chowns /data, /datalog and /logs to uid 1000 {@code zookeeper} and drops to it with gosu; data in
     * ZOO_DATA_DIR, /data, the transaction log in /datalog; /conf/zoo.cfg written only when missing).
     */
    static final List<ImageFacts> ALL = List.of(
            new ImageFacts("flink:2.2.0-java17", "flink", List.of("/opt/flink"), List.of("/opt/flink/conf/config.yaml"),
                    null, null),
            new ImageFacts("apache/kafka:4.2.0", "appuser",
                    List.of("/var/lib/kafka/data", "/etc/kafka/secrets", "/mnt/shared/config", "/opt/kafka"), List.of(),
                    "KAFKA_LOG_DIRS", "/tmp/kraft-combined-logs"),
            new ImageFacts("prom/prometheus:v2.55.1", "nobody", List.of("/prometheus"), List.of(), null, "/prometheus"),
            new ImageFacts("grafana/grafana:12.2.0", "472", List.of("/var/lib/grafana"), List.of(), null,
                    "/var/lib/grafana"),
            new ImageFacts("eclipse-temurin:17-jre", "root", List.of("/"), List.of(), null, null),
            new ImageFacts("zookeeper:3.9.3", "zookeeper", List.of("/data", "/datalog", "/conf", "/logs"), List.of(),
                    "ZOO_DATA_DIR", "/data"),
            new ImageFacts("maven:3.9-eclipse-temurin-17", "root", List.of("/"), List.of(), null, null),
            new ImageFacts("busybox:1.37", "root", List.of("/"), List.of(), null, null));

    static Optional<ImageFacts> of(String image) {
        return ALL.stream().filter(f -> f.image().equals(image)).findFirst();
    }

    /** Whether the path exists in the image and belongs to its user. */
    boolean owns(String path) {
        return user.equals("root") || ownedDirs.stream().anyMatch(dir -> under(path, dir));
    }

    /** The data directory of a stateful image under the given environment, or null. */
    String dataDirectory(Map<String, String> environment) {
        if (dataSetting != null && environment.containsKey(dataSetting)) {
            return environment.get(dataSetting);
        }
        return dataDefault;
    }

    static boolean under(String path, String dir) {
        return path.equals(dir) || dir.equals("/") || path.startsWith(dir.endsWith("/") ? dir : dir + "/");
    }
}
