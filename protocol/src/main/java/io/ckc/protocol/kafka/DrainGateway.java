package io.ckc.protocol.kafka;

import io.ckc.protocol.records.PoaControl;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.util.Properties;
import java.util.concurrent.ExecutionException;

/**
 * Operator command: asks the PoA manager to drain a gateway (it leaves the gateway list, then its
 * nodes are handed over to the others) or to take it back.
 *
 * <p>Command line: {@code DrainGateway <bootstrap> <gatewayId> [--undo] [--topic-prefix ckc.]}.
 */
public final class DrainGateway {

    private DrainGateway() {
    }

    public static void main(String[] args) throws InterruptedException, ExecutionException {
        if (args.length < 2 || !Topics.isValidGatewayId(args[1])) {
            System.err.println("usage: DrainGateway <bootstrap> <gatewayId> [--undo] [--topic-prefix ckc.]");
            System.exit(2);
        }
        boolean drain = true;
        String prefix = Topics.DEFAULT.prefix();
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--undo")) {
                drain = false;
            } else if (args[i].equals("--topic-prefix") && i + 1 < args.length) {
                prefix = args[++i];
            } else {
                throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        send(args[0], args[1], drain, new Topics(prefix, Topics.DEFAULT.appPrefix()));
        System.out.println((drain ? "Draining " : "No longer draining ") + args[1]);
    }

    /** Asks the PoA manager to drain {@code gatewayId} ({@code drain}) or to take it back. */
    public static void send(String bootstrap, String gatewayId, boolean drain, Topics topics)
            throws InterruptedException, ExecutionException {
        Properties props = KafkaClientConfig.client(bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        PoaControl control = new PoaControl(gatewayId, drain, System.currentTimeMillis());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
            producer.send(new ProducerRecord<>(topics.poaControl(), control.gatewayId(),
                    new RecordFormat().write(control))).get();
        }
    }
}
