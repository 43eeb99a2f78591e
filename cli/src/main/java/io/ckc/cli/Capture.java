package io.ckc.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntSupplier;

/** Runs a command of this JVM with what it prints to standard output still printed, and kept. */
final class Capture {

    record Printed(int exitCode, String text) {
        List<String> results() {
            return text.lines().filter(l -> l.startsWith("RESULT")).distinct().toList(); // a command may print them twice
        }
    }

    private Capture() {
    }

    static Printed run(IntSupplier command) {
        PrintStream original = System.out;
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        PrintStream both = new PrintStream(new Tee(original, kept), true, StandardCharsets.UTF_8);
        System.setOut(both);
        try {
            return new Printed(command.getAsInt(), kept.toString(StandardCharsets.UTF_8));
        } finally {
            both.flush();
            System.setOut(original);
        }
    }
}
