package io.ckc.cli;

import java.io.IOException;
import java.io.OutputStream;

/** An output stream that writes everything to two others: printed, and kept. */
final class Tee extends OutputStream {

    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
        this.a = a;
        this.b = b;
    }

    @Override
    public void write(int c) throws IOException {
        a.write(c);
        b.write(c);
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws IOException {
        a.write(bytes, off, len);
        b.write(bytes, off, len);
    }

    @Override
    public void flush() throws IOException {
        a.flush();
        b.flush();
    }
}
