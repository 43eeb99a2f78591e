package io.ckc.jobs.ops;

import io.ckc.jobs.StackAccess;
import io.ckc.protocol.kafka.KafkaPrincipals;
import io.ckc.protocol.kafka.Topics;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Gives a Kafka cluster the principals of a CKC stack with a process per gateway (compose): each a SCRAM user with
 * the password in the folder ({@code ./ckc credentials kafka --compose} writes them, {@link KafkaPrincipals}) and
 * exactly its grants ({@link StackAccess}), applications issued there included. Run as the brokers' admin, whose
 * client settings are in the same folder. Running it again sets the same users and grants.
 */
@Command(name = "grant-kafka-access", mixinStandardHelpOptions = true,
        description = "Makes the stack's Kafka principals SCRAM users of the cluster with exactly their ACLs.")
public final class GrantKafkaAccess implements Callable<Integer> {

    @Parameters(index = "0", description = "The cluster's bootstrap servers")
    String bootstrap;

    @Option(names = "--credentials", required = true, description = "The principals' folder (principals.properties)")
    Path credentials;

    @Option(names = "--gateways", split = ",", required = true, description = "The gateways' ids, a process each")
    List<String> gateways;

    @Override
    public Integer call() {
        KafkaPrincipals principals = new KafkaPrincipals(credentials);
        var grants = StackAccess.of(Topics.DEFAULT, StackAccess.gatewayEach(gateways), List.of(), principals.applications());
        try (Admin admin = principals.admin(bootstrap)) {
            principals.grant(admin, grants);
        }
        System.out.println("granted " + grants.size() + " principals: " + String.join(", ", grants.keySet()));
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new GrantKafkaAccess()).execute(args));
    }
}
