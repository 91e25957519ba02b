package io.changestream.ops.offsets;

import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Test data of the offsets tests: record i of every partition stamped {@code t0 + i s} (explicit CreateTime). */
final class TimedRecords {

    private TimedRecords() {
    }

    static void produce(KafkaBroker broker, String topic, int partitions, Instant t0, int perPartition) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (int i = 0; i < perPartition; i++) {
                records.add(new ProducerRecord<>(topic, p, t0.plusSeconds(i).toEpochMilli(), "k" + i, "v" + i));
            }
        }
        KafkaTestClients.produce(broker, records);
    }
}
