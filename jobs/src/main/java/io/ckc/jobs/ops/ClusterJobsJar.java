package io.ckc.jobs.ops;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The copy of the jobs jar on a standalone cluster's own classpath, named by its content. Why there: a job's
 * classes then load once per process, from the classpath, instead of once per job and per restart in each job's
 * own class loader; a TaskManager that takes over a dead one's jobs spent most of 30 s loading the jar four
 * times (perf faults, 2026-11-26). The cluster resolves classes parent-first, so a jar submitted to it runs the
 * classes of this copy: a submission of a different jar is refused instead of running other code than it names.
 */
public final class ClusterJobsJar {

    static final String PREFIX = "ckc-jobs-";

    private ClusterJobsJar() {
    }

    /** The file name the cluster's copy of {@code jar} has: {@code ckc-jobs-<12 hex digits of its SHA-256>.jar}. */
    public static String nameOf(Path jar) throws IOException {
        try (InputStream in = Files.newInputStream(jar)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha.update(buffer, 0, n);
            }
            return PREFIX + HexFormat.of().formatHex(sha.digest(), 0, 6) + ".jar";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Of a process's classpath entries, the file name of the jobs jar copy on it, if there is one. */
    static Optional<String> in(List<String> classpath) {
        return classpath.stream().map(entry -> entry.substring(entry.lastIndexOf('/') + 1))
                .filter(name -> name.startsWith(PREFIX) && name.endsWith(".jar")).findFirst();
    }

    /**
     * Why a submission is refused: the cluster runs the jobs jar copy {@code onCluster} from its classpath and
     * {@code submitted} is another jar; empty when they are the same or the cluster has none.
     */
    static Optional<String> mismatch(Optional<String> onCluster, Path submitted) throws IOException {
        if (onCluster.isEmpty()) {
            return Optional.empty();
        }
        String name = nameOf(submitted);
        return onCluster.get().equals(name) ? Optional.empty() : Optional.of("the Flink cluster runs the jobs of "
                + onCluster.get() + " from its classpath, and " + submitted + " (" + name + ") is another build: "
                + "restart the cluster to run it (./ckc flink-cluster stop, then start)");
    }
}
