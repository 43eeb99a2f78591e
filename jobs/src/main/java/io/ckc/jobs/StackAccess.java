package io.ckc.jobs;

import io.ckc.jobs.groups.GroupDefinerJob;
import io.ckc.jobs.sql.SqlRunnerJob;
import io.ckc.protocol.kafka.KafkaAccess;
import io.ckc.protocol.kafka.Topics;
import org.apache.kafka.common.acl.AclBinding;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Kafka principals of a CKC stack and what each may do ({@link KafkaAccess}), in one place for every way a stack
 * runs: {@code ./ckc up --kafka-auth}, compose ({@link io.ckc.jobs.ops.GrantKafkaAccess}) and Kubernetes's KafkaUsers.
 */
public final class StackAccess {

    private StackAccess() {
    }

    /**
     * The stack's principals with their grants: one per gateway process ({@code gatewayProcesses}: the principal of
     * each process, with the gateways it runs), the jobs of the catalog, the echo application, the SQL rules, and the
     * applications issued (name to channels).
     *
     * @param deliveryChannels the channels the delivery job answers itself ({@code --echo-channels})
     */
    public static Map<String, List<AclBinding>> of(Topics topics, Map<String, List<String>> gatewayProcesses,
                                                   List<String> deliveryChannels,
                                                   Map<String, List<String>> applications) {
        Map<String, List<AclBinding>> grants = new LinkedHashMap<>();
        gatewayProcesses.forEach((principal, gateways) -> grants.put(principal,
                KafkaAccess.gateways(principal, topics, gateways)));
        grants.put(KafkaAccess.DELIVERY, KafkaAccess.delivery(topics, deliveryChannels));
        grants.put(KafkaAccess.POA_MANAGER, KafkaAccess.poaManager(topics));
        grants.put(KafkaAccess.ECHO, KafkaAccess.application(KafkaAccess.ECHO, topics, List.of("echo")));
        grants.put(KafkaAccess.GROUP_DEFINERS, KafkaAccess.groupDefiners(KafkaAccess.GROUP_DEFINERS,
                GroupDefinerJob.NAME_PREFIX, topics));
        grants.put(KafkaAccess.RULES, KafkaAccess.groupDefiners(KafkaAccess.RULES, SqlRunnerJob.NAME_PREFIX, topics));
        applications.forEach((name, channels) -> grants.put(name, KafkaAccess.application(name, topics, channels)));
        return grants;
    }

    /** A process per gateway, each its own principal ({@code ckc-gateway-<id>}). */
    public static Map<String, List<String>> gatewayEach(List<String> gatewayIds) {
        Map<String, List<String>> processes = new LinkedHashMap<>();
        gatewayIds.forEach(id -> processes.put(KafkaAccess.gatewayPrincipal(id), List.of(id)));
        return processes;
    }
}
