package io.ckc.perf;

import com.sun.management.GarbageCollectorMXBean;
import com.sun.management.GcInfo;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.tools.attach.VirtualMachine;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a soak watches in one JVM of the stack: its live heap, resident memory, open file descriptors and threads.
 * Why the live heap, after a full collection the probe asks for ({@code MemoryMXBean.gc()}, as {@code jcmd GC.run}
 * does): the heap in use rises and falls with every collection, and what a young collection leaves behind still
 * holds the old generation's garbage, which G1 may not collect for hours (the first 60-minute soak read Kafka's heap
 * after its latest collection growing 153 MB an hour without one drop). The price is one full pause per process
 * and sample. Read over JMX from the JVM's own collectors ({@code GcInfo} of that collection, summed over the heap
 * pools), reaching each process through the JDK's
 * attach API (same user, no flags on the target); the rest from OSHI, as {@link ProcessSampler} reads CPU and RSS.
 * Connections are kept per pid: a process started again under a new pid gets a new one.
 */
final class JvmProbe implements AutoCloseable {

    /**
     * One look at one process; NaN where it could not be read. Beside the resident memory, two parts of it that are
     * bounded by design and fill for long under a steady load: the JIT's code cache (committed, at most
     * {@code ReservedCodeCacheSize}, 240 MB by default: the JIT went on compiling at 3 to 5 MB an hour in the Flink
     * processes and Kafka for the whole soak of 2026-11-27 15:50), and the file-backed pages mapped in (jars, Kafka's
     * index files of its active segments, which grow with what is written until the segment rolls).
     */
    record Look(double heapAfterGcMb, double rssMb, double openFds, double threads, double codeCacheMb,
                double fileBackedMb) {
    }

    /** A row of a class histogram: its rank, instances, bytes and class name (then, maybe, the module). */
    private static final Pattern HISTOGRAM_ROW = Pattern.compile("\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+).*");
    private final Map<Long, JMXConnector> connections = new HashMap<>();
    private final OperatingSystem os = new SystemInfo().getOperatingSystem();

    /** Looks at process {@code pid} ({@link ProcessHandle#current()}'s own without JMX). */
    Look look(long pid) {
        OSProcess process = os.getProcess((int) pid);
        if (process == null) {
            return new Look(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        return new Look(heapAfterGcMb(pid), process.getResidentSetSize() / 1048576.0, process.getOpenFiles(),
                process.getThreadCount(), codeCacheMb(pid), fileBackedMb(pid));
    }

    /**
     * Calls made reflectively, as the JMX server calls an MXBean's getters and operations, are made fast from the
     * 16th call of each method on by a class Java 17 generates for it, in the JVM called
     * ({@code sun.reflect.inflationThreshold}, 15 calls): a probe looking once a minute made each process it watched
     * load new classes at minute 16, the first minute a soak fits after its 15-minute warm-up (an idle JVM probed in a
     * loop loaded 5 classes at the 16th look, none after).
     */
    static final int REFLECTIVE_CALLS_UNTIL_COMPILED = 16;

    /**
     * Looks at process {@code pid} {@value #REFLECTIVE_CALLS_UNTIL_COMPILED} times, so that what the probe's own
     * calls add to it is there before anything is measured, not in the middle of it. Each look is a full collection.
     */
    void prime(long pid) {
        for (int i = 0; i < REFLECTIVE_CALLS_UNTIL_COMPILED; i++) {
            look(pid);
        }
    }

    /** The JIT's code cache, committed: its pools ({@code CodeHeap '...'}, or one {@code Code Cache}) summed. */
    private double codeCacheMb(long pid) {
        try {
            MBeanServerConnection beans = beans(pid);
            return ManagementFactory.getPlatformMXBeans(beans, MemoryPoolMXBean.class).stream()
                    .filter(pool -> pool.getType() == MemoryType.NON_HEAP
                            && (pool.getName().startsWith("CodeHeap") || pool.getName().equals("Code Cache")))
                    .mapToLong(pool -> pool.getUsage().getCommitted()).sum() / 1048576.0;
        } catch (Exception e) {
            forget(pid);
            return Double.NaN;
        }
    }

    /** The names of a JVM's live threads (empty if it cannot be read): what a growing thread count is made of. */
    List<String> threadNames(long pid) {
        try {
            MBeanServerConnection beans = beans(pid);
            ThreadMXBean threads = ManagementFactory.getPlatformMXBean(beans, ThreadMXBean.class);
            return Arrays.stream(threads.getThreadInfo(threads.getAllThreadIds())).filter(Objects::nonNull)
                    .map(ThreadInfo::getThreadName).toList();
        } catch (Exception e) {
            forget(pid);
            return List.of();
        }
    }

    /**
     * Bytes of live objects by class, as {@code jcmd GC.class_histogram} gives them (a full collection first), over the
     * JVM's diagnostic command MBean; empty if it cannot be read: what a growing live heap is made of.
     */
    Map<String, Long> liveBytesByClass(long pid) {
        try {
            Object text = beans(pid).invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram", new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return classHistogram(String.valueOf(text));
        } catch (Exception e) {
            forget(pid);
            return Map.of();
        }
    }

    /**
     * Writes the live objects of process {@code pid} to {@code file} (a {@code .hprof}) in HPROF format, as
     * {@code jcmd GC.heap_dump} does (a full collection first), over the JVM's {@code HotSpotDiagnosticMXBean}; false if
     * it could not. The census says which classes grew; a dump says what holds them, in a heap analyser (Eclipse MAT,
     * VisualVM).
     */
    boolean dumpHeap(long pid, Path file) {
        try {
            Files.deleteIfExists(file);
            ManagementFactory.getPlatformMXBean(beans(pid), HotSpotDiagnosticMXBean.class)
                    .dumpHeap(file.toAbsolutePath().toString(), true);
            return Files.size(file) > 0;
        } catch (Exception e) {
            forget(pid);
            return false;
        }
    }

    /** Bytes by class name of a class histogram's rows ({@code    1:   120   4800  [B (java.base@17)}). */
    static Map<String, Long> classHistogram(String text) {
        Map<String, Long> bytes = new HashMap<>();
        for (String line : text.split("\\R")) {
            Matcher row = HISTOGRAM_ROW.matcher(line);
            if (row.matches()) {
                bytes.merge(row.group(2), Long.parseLong(row.group(1)), Long::sum);
            }
        }
        return bytes;
    }

    /** The file-backed part of a process's resident memory ({@code RssFile} of Linux's status file); NaN elsewhere. */
    static double fileBackedMb(long pid) {
        try {
            return statusKb(Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")), "RssFile") / 1024.0;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** A {@code Name:   123 kB} line of a Linux status file, in kB; NaN if it is not there. */
    static double statusKb(List<String> status, String name) {
        for (String line : status) {
            if (line.startsWith(name + ":")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim().split("\\s+")[0]);
            }
        }
        return Double.NaN;
    }

    /**
     * The resident memory of any process, JVM or not, in MB (NaN if it is gone). Only this for a process that is not
     * a JVM: the attach API would send it SIGQUIT, which ends most programs.
     */
    double residentMb(long pid) {
        OSProcess process = os.getProcess((int) pid);
        return process == null ? Double.NaN : process.getResidentSetSize() / 1048576.0;
    }

    private double heapAfterGcMb(long pid) {
        try {
            MBeanServerConnection beans = beans(pid);
            ManagementFactory.getPlatformMXBean(beans, MemoryMXBean.class).gc();
            List<String> heapPools = ManagementFactory.getPlatformMXBeans(beans, MemoryPoolMXBean.class).stream()
                    .filter(pool -> pool.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).toList();
            Optional<GcInfo> latest = ManagementFactory.getPlatformMXBeans(beans, GarbageCollectorMXBean.class).stream()
                    .map(GarbageCollectorMXBean::getLastGcInfo).filter(Objects::nonNull)
                    .max(Comparator.comparingLong(GcInfo::getEndTime));
            if (latest.isEmpty()) {
                return Double.NaN; // no collection yet
            }
            long bytes = 0;
            for (String pool : heapPools) {
                var after = latest.get().getMemoryUsageAfterGc().get(pool);
                bytes += after == null ? 0 : after.getUsed();
            }
            return bytes / 1048576.0;
        } catch (Exception e) {
            forget(pid);
            return Double.NaN;
        }
    }

    /** The MBeans of process {@code pid}: this JVM's own, or another's over its (kept) JMX connection. */
    private MBeanServerConnection beans(long pid) throws Exception {
        return pid == ProcessHandle.current().pid()
                ? ManagementFactory.getPlatformMBeanServer() : connection(pid).getMBeanServerConnection();
    }

    private JMXConnector connection(long pid) throws Exception {
        JMXConnector known = connections.get(pid);
        if (known != null) {
            return known;
        }
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        String address;
        try {
            address = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
        connections.put(pid, connector);
        return connector;
    }

    private void forget(long pid) {
        JMXConnector gone = connections.remove(pid);
        if (gone != null) {
            try {
                gone.close();
            } catch (IOException ignored) {
                // the process went away with it
            }
        }
    }

    @Override
    public void close() {
        List.copyOf(connections.keySet()).forEach(this::forget);
    }
}
