package io.ckc.perf;

import picocli.CommandLine.Option;

/** {@code --protocol udp|mqtt|mixed}: how a scenario's load connects to the gateways. */
final class ProtocolOption {

    @Option(names = "--protocol", defaultValue = "udp", description = "How the load's nodes connect: udp (CKC's "
            + "reliable UDP), mqtt (MQTT 5 devices on the gateways' MQTT ports, --mqtt-gateways) or mixed (half of "
            + "each at once) (default ${DEFAULT-VALUE})")
    String protocol = "udp";

    /** The {@link LoadPath} of this protocol: {@link Results#CKC}, {@link Results#MQTT} or {@link Results#MIXED}. */
    String path() {
        return switch (protocol) {
            case "udp" -> Results.CKC;
            case Results.MQTT, Results.MIXED -> protocol;
            default -> throw new IllegalArgumentException("--protocol is udp, mqtt or mixed, not " + protocol);
        };
    }
}
