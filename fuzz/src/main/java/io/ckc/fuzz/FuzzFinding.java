package io.ckc.fuzz;

/** What a target throws when an input breaks a property it checks: the fuzzer reports it as a crash. */
public final class FuzzFinding extends RuntimeException {

    public FuzzFinding(String message) {
        super(message);
    }

    public FuzzFinding(String message, Throwable cause) {
        super(message, cause);
    }
}
