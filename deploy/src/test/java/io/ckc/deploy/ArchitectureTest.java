package io.ckc.deploy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The layers of the code, bottom up: records and topics (what crosses Kafka), the gateway core, the
 * protocol adapters and their wire formats, then what starts and uses them (the gateway process, the
 * jobs, the client, perf). Nothing imports a layer above its own, and the core and the records know no
 * protocol, so a second protocol (MQTT) plugs in beside UDP without touching them.
 *
 * <p>Between modules, Maven's dependencies already forbid upward imports (protocol, then client and the
 * gateway, then the jobs, then perf); these rules hold the layers inside a module, where Maven cannot.
 */
class ArchitectureTest {

    /** The UDP protocol: frames, the reliable session, datagram handlers, and the gateway's adapter. */
    private static final String[] UDP = {"io.ckc.protocol.frame..", "io.ckc.protocol.mrudp..",
            "io.ckc.protocol.netty..", "io.ckc.gateway.udp.."};
    /** The MQTT protocol: Netty's codec and the gateway's adapter. */
    private static final String[] MQTT = {"io.netty.handler.codec.mqtt..", "io.ckc.gateway.mqtt.."};
    /** Netty's transports and sockets: an adapter's business, never the core's. */
    private static final String[] TRANSPORTS = {"io.netty.channel.socket..", "io.netty.channel.epoll..",
            "io.netty.channel.nio..", "io.netty.bootstrap.."};

    private static JavaClasses classes;

    @BeforeAll
    static void importTheProject() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.ckc");
    }

    @Test
    void recordsKnowNoProtocol() {
        noClasses().that().resideInAnyPackage("io.ckc.protocol.records..")
                .should().dependOnClassesThat().resideInAnyPackage(UDP)
                .as("records carry protocol-neutral types")
                .check(classes);
    }

    @Test
    void theGatewayCoreKnowsNoProtocolNoTransportAndNoAdapter() {
        noClasses().that().resideInAPackage("io.ckc.gateway.core..")
                .should().dependOnClassesThat().resideInAnyPackage(UDP)
                .orShould().dependOnClassesThat().resideInAnyPackage(MQTT)
                .orShould().dependOnClassesThat().resideInAnyPackage(TRANSPORTS)
                .as("the gateway core imports no adapter, frame, codec or transport")
                .check(classes);
    }

    @Test
    void theGatewayCoreImportsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.ckc.gateway.core..")
                .should().dependOnClassesThat().resideInAnyPackage("io.ckc.jobs..", "io.ckc.client..",
                        "io.ckc.perf..", "io.ckc.deploy..")
                .orShould().dependOnClassesThat().resideInAPackage("io.ckc.gateway")
                .as("the gateway core imports nothing of the process that starts it")
                .check(classes);
    }

    @Test
    void aProtocolAdapterImportsNothingOfTheProcessThatStartsIt() {
        noClasses().that().resideInAnyPackage("io.ckc.gateway.udp..", "io.ckc.gateway.mqtt..")
                .should().dependOnClassesThat().resideInAPackage("io.ckc.gateway")
                .orShould().dependOnClassesThat().resideInAnyPackage("io.ckc.jobs..", "io.ckc.client..",
                        "io.ckc.perf..")
                .as("an adapter takes its options and the core, nothing of the gateway process")
                .check(classes);
    }

    @Test
    void oneAdapterKnowsNothingOfAnother() {
        noClasses().that().resideInAPackage("io.ckc.gateway.mqtt..")
                .should().dependOnClassesThat().resideInAnyPackage("io.ckc.gateway.udp..", "io.ckc.protocol.frame..",
                        "io.ckc.protocol.mrudp..")
                .as("the MQTT adapter shares the core and the Netty transport with the UDP one, nothing else")
                .check(classes);
        noClasses().that().resideInAPackage("io.ckc.gateway.udp..")
                .should().dependOnClassesThat().resideInAnyPackage(MQTT)
                .as("the UDP adapter knows no MQTT")
                .check(classes);
    }

    @Test
    void theJobsKnowNoProtocol() {
        noClasses().that().resideInAPackage("io.ckc.jobs..")
                .should().dependOnClassesThat().resideInAnyPackage(UDP)
                .orShould().dependOnClassesThat().resideInAnyPackage(MQTT)
                .orShould().dependOnClassesThat().resideInAnyPackage("io.ckc.gateway..", "io.ckc.client..",
                        "io.ckc.perf..")
                .as("the Flink jobs decide without knowing which protocol a node speaks")
                .check(classes);
    }
}
