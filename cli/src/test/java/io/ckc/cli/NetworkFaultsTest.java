package io.ckc.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NetworkFaultsTest {

    private static final List<NetworkFaults.Port> GATEWAY_1 = List.of(new NetworkFaults.Port("udp", 5684),
            new NetworkFaults.Port("tcp", 1883));

    @Test
    void lossDropsTheGatewaysUdpAndMqttPacketsBothWays(@TempDir Path dir) throws Exception {
        String rules = NetworkFaults.lossRules(GATEWAY_1, 20);
        assertThat(rules).contains("udp dport 5684 numgen random mod 100 < 20 drop",
                "udp sport 5684 numgen random mod 100 < 20 drop", "tcp dport 1883 numgen random mod 100 < 20 drop",
                "tcp sport 1883 numgen random mod 100 < 20 drop");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/nft")), "nft is not installed");
        Assumptions.assumeTrue("0".equals(Ckc.runForOutput(List.of("id", "-u")).strip()), "nft -c needs root");
        Path file = dir.resolve("rules.nft");
        Files.writeString(file, rules);
        Process check = new ProcessBuilder("/usr/sbin/nft", "-c", "-f", file.toString()).redirectErrorStream(true)
                .start();
        String said = new String(check.getInputStream().readAllBytes());
        assertThat(check.waitFor()).as("nft -c says: %s", said).isZero();
    }

    @Test
    void aRateLimitClassifiesEachPortInEitherDirectionByItsIpProtocol() {
        List<List<String>> commands = NetworkFaults.rateLimitCommands(GATEWAY_1, 96);
        assertThat(commands.get(1)).containsSubsequence("rate", "96kbit", "ceil", "96kbit");
        assertThat(commands.subList(2, commands.size())).extracting(c -> String.join(" ", c)).containsExactly(
                "tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 5684 0xffff flowid 1:30",
                "tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff match ip sport 5684 0xffff flowid 1:30",
                "tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff match ip dport 1883 0xffff flowid 1:30",
                "tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff match ip sport 1883 0xffff flowid 1:30");
    }
}
