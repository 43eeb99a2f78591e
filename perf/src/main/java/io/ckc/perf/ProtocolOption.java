package io.ckc.perf;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.List;

/** {@code --protocol udp|mqtt|mixed}: how a scenario's load connects to the gateways. */
final class ProtocolOption {

    @Option(names = "--protocol", defaultValue = "udp", description = "How the load's nodes connect: udp (CKC's "
            + "reliable UDP), mqtt (MQTT 5 devices on the gateways' MQTT ports, --mqtt-gateways) or mixed (half of "
            + "each at once) (default ${DEFAULT-VALUE})")
    String protocol = "udp";

    /** The command this option is mixed into, whose usage a wrong value names. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /**
     * How many of {@code nodes} connect over reliable UDP (the rest are MQTT devices): all, none or half.
     *
     * @throws CommandLine.ParameterException for another protocol, or MQTT devices without {@code mqttGateways}
     */
    int udpNodes(int nodes, List<String> mqttGateways) {
        int udp = switch (protocol) {
            case "udp" -> nodes;
            case "mqtt" -> 0;
            case "mixed" -> nodes / 2;
            default -> throw new CommandLine.ParameterException(command.commandLine(),
                    "--protocol is udp, mqtt or mixed, not " + protocol);
        };
        if (udp < nodes && mqttGateways.isEmpty()) {
            throw new CommandLine.ParameterException(command.commandLine(), "--protocol " + protocol
                    + " needs --mqtt-gateways");
        }
        return udp;
    }

    /** The {@link LoadPath} of this protocol: {@link Results#CKC}, {@link Results#MQTT} or {@link Results#MIXED}. */
    String path() {
        return switch (protocol) {
            case "udp" -> Results.CKC;
            case Results.MQTT, Results.MIXED -> protocol;
            default -> throw new IllegalArgumentException("--protocol is udp, mqtt or mixed, not " + protocol);
        };
    }
}
