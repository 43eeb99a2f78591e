package io.ckc.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NativeProfileTest {

    /** Lines as {@code perf script -F comm,pid,tid,ip,sym,dso} prints them, taken from a recording of the stack. */
    private static final List<String> SCRIPT = List.of(
            " C2 CompilerThre 22239/22259      7f7ed6b34fb2 PhaseChaitin::gather_lrg_masks (/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so)",
            " C2 CompilerThre 22239/22259      7f7ed7bba0ba __memset_avx512_unaligned_erms (/usr/lib/x86_64-linux-gnu/libc.so.6)",
            " Source Data Fet 22239/22717      7f7ec136e3a9 java.util.List org.apache.kafka.clients.NetworkClient.poll(long, long) (/tmp/perf-22239.map)",
            " data-plane-kafk 22013/22206      7f38c10bdf36 epoll_wait (/usr/lib/x86_64-linux-gnu/libc.so.6)",
            " data-plane-kafk 22013/22207  ffffffff815fa2d8 pvm_irq_enable ([kernel.kallsyms])",
            "     GC Thread#0 22013/22020      7f38c10b0000 G1ParScanThreadState::trim_queue_to_threshold (/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so)",
            "       kdamond.0    77/77    ffffffff815fa2d8 ptep_test_and_clear_young ([kernel.kallsyms])",
            "       perf-exec 23607/23607  ffffffff815fa2d8 unmap_page_range ([kernel.kallsyms])",
            "         swapper     0/0     ffffffff81c0a2d1 pvm_safe_halt ([kernel.kallsyms])",
            "not a sample line");

    @Test
    void parsesThreadNamesWithSpacesAndJitSymbols() {
        NativeProfile.Sample sample = NativeProfile.parse(SCRIPT.get(2));
        assertEquals("Source Data Fet", sample.thread());
        assertEquals(22239, sample.pid());
        assertEquals("compiled Java", sample.codeKind());
        assertEquals("other threads", sample.threadKind());
        assertEquals("org.apache.kafka.clients.NetworkClient.poll", NativeProfile.shorten(sample.symbol()));
        assertEquals("JIT compiler", NativeProfile.parse(SCRIPT.get(0)).threadKind());
        assertEquals("JVM", NativeProfile.parse(SCRIPT.get(0)).codeKind());
        assertEquals("GC and safepoints", NativeProfile.parse(SCRIPT.get(5)).threadKind());
        assertEquals("GC Thread", NativeProfile.parse(SCRIPT.get(5)).threadGroup());
        assertEquals("kernel", NativeProfile.parse(SCRIPT.get(4)).codeKind());
        assertNull(NativeProfile.parse(SCRIPT.get(9)));
    }

    @Test
    void attributesSamplesToStackProcessesAsShareOfOneCore(@TempDir Path dir) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(dir.resolve(NativeProfile.SCRIPT + ".gz")))) {
            out.write(String.join("\n", SCRIPT).getBytes(StandardCharsets.UTF_8));
        }
        // 2 Hz for 1 s: one core is 2 samples, so each sample is 50% of one core.
        Files.writeString(dir.resolve(NativeProfile.PROPERTIES), "hz=2\nseconds=1\nprocess.kafka=22013\nprocess.flink=22239\n");

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        NativeProfile.readFrom(dir).print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        String text = printed.toString(StandardCharsets.UTF_8);

        assertTrue(text.contains("flink            150.0% of one core"), text);
        assertTrue(text.contains("by thread: JIT compiler 66.7%, other threads 33.3%"), text);
        assertTrue(text.contains("kafka            150.0% of one core"), text);
        assertTrue(text.contains("GC and safepoints 33.3%"), text);
        // kdamond is outside the stack, the idle task is idle time; perf's own samples are not counted at all.
        assertTrue(text.contains("outside the stack  50.0% of one core: kdamond 100.0%"), text);
        assertTrue(text.contains("idle               50.0% of one core"), text);
    }

    @Test
    void aFolderWithoutANativeRecordingHasNone(@TempDir Path dir) throws IOException {
        assertNull(NativeProfile.readFrom(dir));
    }
}
