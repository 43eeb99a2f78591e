package io.ckc.jobs;

import io.ckc.jobs.delivery.DeliveryJob;
import io.ckc.jobs.echo.EchoJob;
import io.ckc.jobs.groups.GroupDefinerJob;
import io.ckc.jobs.io.KafkaIo;
import io.ckc.jobs.poa.PoaManagerJob;
import io.ckc.protocol.kafka.KafkaAccess;
import io.ckc.protocol.kafka.KafkaPrincipals;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ParameterTool;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The jobs a CKC stack runs, declared once: {@link EmbeddedFlink} starts them on its MiniCluster, and
 * {@code ./ckc up} (io.ckc.cli) reads what to submit to a cluster and how many jobs to wait for. The short name is what the operator commands take as JOB; the Flink job
 * name is {@code ckc-<name>}.
 */
public final class JobCatalog {

    public static final String NAME_PREFIX = "ckc-";

    /**
     * The stack flag naming the folder of the jobs' Kafka client settings, {@code <principal>.properties} a job: each job
     * then gets its own as {@code --kafka-client-config} ({@link KafkaAccess}).
     */
    public static final String KAFKA_CREDENTIALS_FLAG = "kafka-credentials";

    /** A kind of job: its entry class, its Kafka principal and how its graph is built from flags. */
    public enum Kind {
        DELIVERY(DeliveryJob.class.getName(), KafkaAccess.DELIVERY),
        POA_MANAGER(PoaManagerJob.class.getName(), KafkaAccess.POA_MANAGER),
        ECHO(EchoJob.class.getName(), KafkaAccess.ECHO),
        GROUP_DEFINER(GroupDefinerJob.class.getName(), KafkaAccess.GROUP_DEFINERS);

        private final String entryClass;
        private final String principal;

        Kind(String entryClass, String principal) {
            this.entryClass = entryClass;
            this.principal = principal;
        }

        public String entryClass() {
            return entryClass;
        }

        /** The Kafka principal its jobs run as where Kafka authenticates. */
        public String principal() {
            return principal;
        }

        /**
         * Whether two of its jobs may run side by side for a while (a blue/green rescale): what both write carries the
         * same ids, which nodes and devices' sessions drop (docs/operations.md). The PoA manager and the group definers
         * are not yet shown to: they are rescaled by savepoint.
         */
        public boolean blueGreen() {
            return this == DELIVERY || this == ECHO;
        }

        /** Adds the job's operators to an environment, from the stack's flags merged with the job's own. */
        public Consumer<StreamExecutionEnvironment> program(ParameterTool params) {
            return switch (this) {
                case DELIVERY -> DeliveryJob.fromArgs(params)::build;
                case POA_MANAGER -> PoaManagerJob.fromArgs(params)::build;
                case ECHO -> EchoJob.fromArgs(params)::build;
                case GROUP_DEFINER -> GroupDefinerJob.fromArgs(params)::build;
            };
        }
    }

    /**
     * One job of a stack.
     *
     * @param name its short name, e.g. {@code delivery}, {@code group-definer-grid-cell}
     * @param args its own flags, after the stack's ({@code --parallelism} among them)
     */
    public record Launch(Kind kind, String name, int parallelism, List<String> args) {

        public String flinkName() {
            return NAME_PREFIX + name;
        }

        /** This job's own flags, and its Kafka client settings where the stack's flags name a folder of them. */
        public List<String> args(ParameterTool stackFlags) {
            String credentials = stackFlags.get(KAFKA_CREDENTIALS_FLAG);
            if (credentials == null) {
                return args;
            }
            List<String> all = new ArrayList<>(args);
            all.add("--" + KafkaIo.CLIENT_CONFIG_FLAG);
            all.add(KafkaPrincipals.clientConfigFile(java.nio.file.Path.of(credentials), kind.principal()).toString());
            return all;
        }

        /** The stack's flags, then this job's own ({@link #args(ParameterTool)}). */
        public ParameterTool params(ParameterTool stackFlags) {
            return stackFlags.mergeWith(ParameterTool.fromArgs(args(stackFlags).toArray(String[]::new)));
        }
    }

    private JobCatalog() {
    }

    /**
     * The jobs of a stack: delivery, the PoA manager, the echo application (unless its parallelism is
     * 0) and the group definer of {@code groupSelection} (unless {@code none}).
     */
    public static List<Launch> stack(int deliveryParallelism, int echoParallelism, int poaParallelism,
                                     String groupSelection) {
        List<Launch> jobs = new ArrayList<>();
        jobs.add(launch(Kind.DELIVERY, "delivery", deliveryParallelism));
        jobs.add(launch(Kind.POA_MANAGER, "poa-manager", poaParallelism));
        if (echoParallelism > 0) {
            jobs.add(launch(Kind.ECHO, "echo", echoParallelism));
        }
        if (!groupSelection.equals("none")) {
            jobs.add(new Launch(Kind.GROUP_DEFINER, "group-definer-" + groupSelection, 1,
                    List.of("--parallelism", "1", "--selection", groupSelection)));
        }
        return List.copyOf(jobs);
    }

    /** The stack from the flags {@link EmbeddedFlink} and {@code ./ckc up} share. */
    public static List<Launch> stack(ParameterTool params) {
        return stack(params.getInt("delivery-parallelism", 1),
                params.has("no-echo") ? 0 : params.getInt("echo-parallelism", 1), params.getInt("poa-parallelism", 1),
                params.get("group-selection", "grid-cell"));
    }

    private static Launch launch(Kind kind, String name, int parallelism) {
        return new Launch(kind, name, parallelism, List.of("--parallelism", String.valueOf(parallelism)));
    }
}
