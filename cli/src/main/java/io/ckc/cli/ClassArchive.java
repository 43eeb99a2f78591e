package io.ckc.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The classes a process of the stack loads as it starts, parsed and verified once and kept in a class data sharing
 * archive (AppCDS, {@code -XX:ArchiveClassesAtExit} then {@code -XX:SharedArchiveFile}), so that its later starts map
 * them instead. Why: a process started again under load (the broker after a crash) spends its first seconds loading
 * classes on cores the rest of the stack keeps busy; with its archive the broker started in 3.3-4.3 s instead of
 * 6.4-7.1 s beside three busy loops on this machine's two cores, and in 1.9-2.1 s instead of 2.8-3.4 s alone.
 * <p>
 * An archive holds only for the JVM and the jars it was made with, so its name carries a digest of both: a new JDK or
 * a jar that changed makes another, and the old one is removed. A JVM that cannot use an archive runs without it.
 */
final class ClassArchive {

    private final Path file;
    private final Path directory;
    private final String component;

    private ClassArchive(Path directory, String component, String digest) {
        this.directory = directory;
        this.component = component;
        this.file = directory.resolve(component + "-" + digest + ".jsa");
    }

    /** The archive of {@code component}, whose classpath is every jar in {@code libDirectory}; kept in {@code directory}. */
    static ClassArchive of(Path directory, String component, Path libDirectory) {
        return new ClassArchive(directory, component, digest(System.getProperty("java.home"),
                System.getProperty("java.vm.version"), libDirectory));
    }

    Path file() {
        return file;
    }

    boolean exists() {
        return Files.isRegularFile(file);
    }

    /** The flag of a start that maps the archive. */
    String useFlag() {
        return "-XX:SharedArchiveFile=" + file;
    }

    /** The flag of a start that records the archive as the JVM exits; removes this component's archives of before. */
    String recordFlag() {
        try {
            Files.createDirectories(directory);
            try (Stream<Path> old = Files.list(directory)) {
                for (Path p : old.filter(p -> p.getFileName().toString().startsWith(component + "-")).toList()) {
                    Files.delete(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "-XX:ArchiveClassesAtExit=" + file;
    }

    /** A digest of the JVM and of each jar's name, size and modification time, as the JVM checks them. */
    static String digest(String javaHome, String vmVersion, Path libDirectory) {
        try (Stream<Path> jars = Files.list(libDirectory)) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((javaHome + "\n" + vmVersion + "\n").getBytes(StandardCharsets.UTF_8));
            List<Path> sorted = jars.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
            for (Path jar : sorted) {
                sha.update((jar.getFileName() + " " + Files.size(jar) + " " + Files.getLastModifiedTime(jar).toMillis()
                        + "\n").getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
