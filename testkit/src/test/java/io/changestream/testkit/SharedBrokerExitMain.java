package io.changestream.testkit;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A test JVM in miniature for {@link SharedBrokerExitIT}: uses {@link Brokers#shared()} as a test class does
 * (topics, a few hundred records), then exits with status 0 as Surefire's forked booter does after the last test.
 */
final class SharedBrokerExitMain {

    private SharedBrokerExitMain() {
    }

    public static void main(String[] args) {
        KafkaBroker broker = Brokers.shared();
        for (int t = 0; t < 3; t++) {
            String topic = "exit-" + t;
            broker.createTopic(topic, 3);
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                records.add(new ProducerRecord<>(topic, "key-" + i, "value-" + i));
            }
            KafkaTestClients.produce(broker, records);
        }
        System.out.println("tests done, exiting");
        System.exit(0);
    }
}
