package io.ckc.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** This machine's UDP counters, from Linux's {@code /proc/net/snmp}. */
final class UdpStatistics {

    private static final Path SNMP = Path.of("/proc/net/snmp");

    private UdpStatistics() {
    }

    /** Datagrams the kernel dropped because a socket's receive buffer was full, so far; NaN where unknown. */
    static double receiveBufferErrors() {
        try {
            return counter(Files.readAllLines(SNMP), "RcvbufErrors");
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    /** A counter of the {@code Udp:} lines (one of names, one of values); NaN if they are not there. */
    static double counter(List<String> snmp, String name) {
        List<String> udp = snmp.stream().filter(line -> line.startsWith("Udp: ")).toList();
        if (udp.size() < 2) {
            return Double.NaN;
        }
        List<String> names = List.of(udp.get(0).trim().split("\\s+"));
        String[] values = udp.get(1).trim().split("\\s+");
        int at = names.indexOf(name);
        return at < 0 || at >= values.length ? Double.NaN : Double.parseDouble(values[at]);
    }
}
