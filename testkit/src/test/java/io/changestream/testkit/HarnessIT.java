package io.changestream.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class HarnessIT {

    @Test
    void brokerRoundTripsTenThousandRecords() {
        KafkaBroker broker = Brokers.shared();
        assertEquals("embedded-kraft", broker.kind());
        String topic = "harness-roundtrip";
        broker.createTopic(topic, 3);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            records.add(new ProducerRecord<>(topic, "key-" + (i % 97), "value-" + i));
        }
        KafkaTestClients.produce(broker, records);

        List<ConsumerRecord<String, String>> got =
                KafkaTestClients.consume(broker, topic, 10_000, Duration.ofSeconds(60));

        assertEquals(10_000, got.size());
        Set<String> values = new HashSet<>();
        got.forEach(r -> values.add(r.value()));
        assertEquals(10_000, values.size(), "every record arrives exactly once");
    }

    @Test
    void postgresAcceptsALogicalReplicationSlot() throws Exception {
        try (PostgresDatabase pg = PostgresDatabase.start();
             Connection c = pg.connection();
             Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SHOW wal_level")) {
                rs.next();
                assertEquals("logical", rs.getString(1));
            }
            try (ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
                rs.next();
                assertEquals("on", rs.getString(1));
            }
            s.execute("SELECT pg_create_logical_replication_slot('harness_slot', 'pgoutput')");
            try (ResultSet rs = s.executeQuery(
                    "SELECT plugin, slot_type FROM pg_replication_slots WHERE slot_name = 'harness_slot'")) {
                assertTrue(rs.next(), "slot exists");
                assertEquals("pgoutput", rs.getString(1));
                assertEquals("logical", rs.getString(2));
            }
        }
    }

    @Test
    void mariaDbWritesARowBinlog() throws Exception {
        try (MariaDbServer db = MariaDbServer.start();
             Connection c = db.connection();
             Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT @@log_bin, @@binlog_format, @@server_id")) {
                rs.next();
                assertEquals(1, rs.getInt(1));
                assertEquals("ROW", rs.getString(2));
                assertEquals(1, rs.getInt(3));
            }
            s.execute("CREATE TABLE t (id INT PRIMARY KEY)");
            s.execute("INSERT INTO t VALUES (1)");
            try (ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
                assertTrue(rs.next(), "binary log is on");
                assertTrue(rs.getLong("Position") > 0);
            }
        }
    }
}
