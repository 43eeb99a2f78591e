package io.ckc.fuzz;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * How a target that reads a sequence (datagrams from several senders, the reads of a TCP stream) takes it from one
 * fuzz input: chunks of {@code [tag: 1 byte][length: 2 bytes, big-endian][bytes]}; a short last chunk takes what
 * is left. The seeds are written the same way ({@link #join}), so the fuzzer starts from real conversations.
 */
public final class Chunks {

    /** One chunk: its tag (which sender, say) and its bytes. */
    public record Chunk(int tag, byte[] bytes) {
    }

    /** At most this many chunks are read from one input, so one input stays one conversation. */
    public static final int MAX_CHUNKS = 64;

    private Chunks() {
    }

    public static List<Chunk> split(byte[] data) {
        List<Chunk> chunks = new ArrayList<>();
        int at = 0;
        while (at < data.length && chunks.size() < MAX_CHUNKS) {
            int tag = data[at++] & 0xff;
            int length = 0;
            if (at + 1 < data.length) {
                length = ((data[at] & 0xff) << 8) | (data[at + 1] & 0xff);
                at += 2;
            } else {
                at = data.length;
            }
            length = Math.min(length, data.length - at);
            byte[] bytes = new byte[length];
            System.arraycopy(data, at, bytes, 0, length);
            at += length;
            chunks.add(new Chunk(tag, bytes));
        }
        return chunks;
    }

    public static byte[] join(List<Chunk> chunks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Chunk chunk : chunks) {
            if (chunk.bytes().length > 0xffff) {
                throw new IllegalArgumentException("a chunk holds at most 65,535 bytes");
            }
            out.write(chunk.tag());
            out.write(chunk.bytes().length >>> 8);
            out.write(chunk.bytes().length & 0xff);
            out.writeBytes(chunk.bytes());
        }
        return out.toByteArray();
    }
}
