package io.ckc.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Loss and a rate limit on one gateway's path, for {@code perf faults}. This kernel has no {@code netem}; what it
 * has: nftables drops a share of packets ({@code numgen random mod 100 < N drop}) and {@code tc} shapes a class of
 * them ({@code htb}). The stack runs on loopback, so both match the gateway's UDP and MQTT ports, in either direction:
 * the packets of its nodes and devices and nothing else (its Kafka traffic goes to other ports). The rules live in a table and a qdisc of
 * their own, removed by {@link #lift} (and at the start of every run, in case one was cut short).
 */
final class NetworkFaults {

    static final String TABLE = "ckc_faults";
    private static final String DEVICE = "lo";

    /** Why loss and rate limits cannot be injected here; empty if they can. */
    static Optional<String> cannot() {
        if (!"0".equals(Ckc.runForOutput(List.of("id", "-u")).strip())) {
            return Optional.of("nftables and tc need root");
        }
        for (String tool : List.of("/usr/sbin/nft", "/usr/sbin/tc")) {
            if (!Files.isExecutable(Path.of(tool))) {
                return Optional.of(tool + " is missing (Debian: apt-get install nftables iproute2)");
            }
        }
        return Optional.empty();
    }

    /** A port of the impaired gateway: its reliable-UDP port ({@code udp}) or its MQTT port ({@code tcp}). */
    record Port(String protocol, int number) {
        Port {
            if (!protocol.equals("udp") && !protocol.equals("tcp")) {
                throw new IllegalArgumentException("udp or tcp, not " + protocol);
            }
        }

        /** The protocol's number in the IP header, as {@code tc}'s u32 matches it. */
        String ipProtocol() {
            return protocol.equals("udp") ? "17" : "6";
        }
    }

    /** The nftables rules that drop {@code lossPercent}% of the packets to and from {@code ports}. */
    static String lossRules(List<Port> ports, int lossPercent) {
        List<String> lines = new ArrayList<>(List.of("table inet " + TABLE + " {",
                "  chain input { type filter hook input priority filter; policy accept;"));
        ports.forEach(p -> lines.add("    " + p.protocol() + " dport " + p.number() + " numgen random mod 100 < "
                + lossPercent + " drop"));
        lines.addAll(List.of("  }", "  chain output { type filter hook output priority filter; policy accept;"));
        ports.forEach(p -> lines.add("    " + p.protocol() + " sport " + p.number() + " numgen random mod 100 < "
                + lossPercent + " drop"));
        lines.addAll(List.of("  }", "}", ""));
        return String.join("\n", lines);
    }

    /**
     * The {@code tc} commands that send the packets to and from {@code ports} through an htb class of
     * {@code rateKbit} kbit/s (a token bucket; what exceeds it queues, then drops), everything else on the device
     * untouched. (This kernel has htb and tbf, not prio.)
     */
    static List<List<String>> rateLimitCommands(List<Port> ports, int rateKbit) {
        List<List<String>> commands = new ArrayList<>();
        // htb with no default class: what no filter classifies goes straight to the device, unshaped.
        commands.add(List.of("tc", "qdisc", "add", "dev", DEVICE, "root", "handle", "1:", "htb"));
        commands.add(List.of("tc", "class", "add", "dev", DEVICE, "parent", "1:", "classid", "1:30", "htb", "rate",
                rateKbit + "kbit", "ceil", rateKbit + "kbit", "burst", "8kb"));
        for (Port port : ports) {
            for (String direction : List.of("dport", "sport")) {
                commands.add(List.of("tc", "filter", "add", "dev", DEVICE, "parent", "1:", "protocol", "ip", "prio",
                        "1", "u32", "match", "ip", "protocol", port.ipProtocol(), "0xff", "match", "ip", direction,
                        String.valueOf(port.number()), "0xffff", "flowid", "1:30"));
            }
        }
        return commands;
    }

    /** Loss and/or a rate limit (0: none of it) on the packets of {@code ports}. */
    void impair(List<Port> ports, int lossPercent, int rateKbit) {
        lift();
        if (lossPercent > 0) {
            nft(lossRules(ports, lossPercent));
        }
        if (rateKbit > 0) {
            rateLimitCommands(ports, rateKbit).forEach(Ckc::runForOutput);
        }
    }

    /** Removes every rule and qdisc {@link #impair} put in place; nothing if none is. */
    void lift() {
        if (Ckc.runForOutput(List.of("nft", "list", "tables")).contains(" " + TABLE)) {
            Ckc.runForOutput(List.of("nft", "delete", "table", "inet", TABLE));
        }
        if (Ckc.runForOutput(List.of("tc", "qdisc", "show", "dev", DEVICE)).contains("qdisc htb 1:")) {
            Ckc.runForOutput(List.of("tc", "qdisc", "del", "dev", DEVICE, "root"));
        }
    }

    private static void nft(String rules) {
        try {
            Path file = Files.createTempFile("ckc-faults", ".nft");
            try {
                Files.writeString(file, rules);
                Ckc.runForOutput(List.of("nft", "-f", file.toString()));
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
