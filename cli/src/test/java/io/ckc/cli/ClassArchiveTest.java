package io.ckc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

class ClassArchiveTest {

    @TempDir
    Path dir;

    @Test
    void anotherJvmOrAChangedJarMakesAnotherArchive() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Path jar = Files.write(lib.resolve("a.jar"), new byte[] {1, 2, 3});
        Files.writeString(lib.resolve(".complete"), "");
        String first = ClassArchive.digest("/jdk", "17.0.15", lib);

        assertThat(ClassArchive.digest("/jdk", "17.0.15", lib)).isEqualTo(first);
        assertThat(ClassArchive.digest("/jdk", "17.0.16", lib)).as("another JVM").isNotEqualTo(first);
        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 1000));
        String touched = ClassArchive.digest("/jdk", "17.0.15", lib);
        assertThat(touched).as("a jar modified since").isNotEqualTo(first);
        FileTime modified = Files.getLastModifiedTime(jar);
        Files.write(jar, new byte[] {1, 2, 3, 4});
        Files.setLastModifiedTime(jar, modified);
        assertThat(ClassArchive.digest("/jdk", "17.0.15", lib)).as("a jar of another size").isNotEqualTo(touched);
        Files.writeString(lib.resolve(".complete"), "changed");
        String now = ClassArchive.digest("/jdk", "17.0.15", lib);
        Files.write(lib.resolve("notes.txt"), new byte[] {9});
        assertThat(ClassArchive.digest("/jdk", "17.0.15", lib)).as("only jars count").isEqualTo(now);
    }

    @Test
    void recordingAnArchiveRemovesTheComponentsOldOnesAndNoOtherComponents() throws Exception {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Files.write(lib.resolve("a.jar"), new byte[] {1});
        Path archives = dir.resolve("cds");
        Files.createDirectories(archives);
        Path old = Files.writeString(archives.resolve("kafka-0123456789abcdef.jsa"), "old");
        Path other = Files.writeString(archives.resolve("gateway-0123456789abcdef.jsa"), "other");

        ClassArchive archive = ClassArchive.of(archives, "kafka", lib);
        assertThat(archive.exists()).isFalse();
        assertThat(archive.recordFlag()).isEqualTo("-XX:ArchiveClassesAtExit=" + archive.file());
        assertThat(old).doesNotExist();
        assertThat(other).exists();

        Files.writeString(archive.file(), "recorded");
        assertThat(ClassArchive.of(archives, "kafka", lib).exists()).isTrue();
        assertThat(archive.useFlag()).isEqualTo("-XX:SharedArchiveFile=" + archive.file());
    }
}
