package io.ckc.fuzz;

/** A target with a crash planted behind a four-byte comparison, for the runner's own test. */
public final class PlantedCrashTarget {

    private PlantedCrashTarget() {
    }

    public static void fuzzerTestOneInput(byte[] data) {
        if (data.length >= 4 && data[0] == 'C' && data[1] == 'K' && data[2] == 'C' && data[3] == '!') {
            throw new IllegalStateException("planted");
        }
    }
}
