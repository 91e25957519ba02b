package io.changestream.cdc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcException;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/** What the capture loop derives from the config: producer timeouts, backoff, server ids, topic configs. */
class CaptureSettingsTest {

    private static Map<String, String> minimal() {
        Map<String, String> s = new HashMap<>();
        s.put("database.name", "db");
        s.put("database.user", "u");
        s.put("kafka.bootstrap.servers", "localhost:9");
        return s;
    }

    @Test
    void aPositiveLingerStartsAProducer() {
        for (String linger : new String[] {"0", "1", "5", "1000"}) {
            Map<String, String> s = minimal();
            s.put("kafka.linger.ms", linger);
            Map<String, Object> props = CaptureLoop.producerProperties(CdcConfig.fromMap(s));
            // Kafka refuses delivery.timeout.ms < linger.ms + request.timeout.ms at construction
            new KafkaProducer<String, String>(props).close();
        }
        Map<String, String> tight = minimal();
        tight.put("kafka.linger.ms", "1000");
        tight.put("kafka.ack.timeout.ms", "1500");
        CdcException e = assertThrows(CdcException.class, () -> CdcConfig.fromMap(tight));
        assertTrue(e.getMessage().contains("kafka.ack.timeout.ms") && e.getMessage().contains("kafka.linger.ms"),
                e.getMessage());
    }

    @Test
    void producerBatchesAreSizedForKilobyteRowsUnlessAKafkaSettingSaysOtherwise() {
        Map<String, Object> defaults = CaptureLoop.producerProperties(CdcConfig.fromMap(minimal()));
        assertEquals(524_288, defaults.get("batch.size"), "about a hundred 4 KB change events per produce batch");
        assertEquals(org.apache.kafka.common.serialization.ByteArraySerializer.class,
                defaults.get("value.serializer"), "the SMT's UTF-8 bytes are sent as they are");
        Map<String, String> s = minimal();
        s.put("kafka.batch.size", "65536");
        s.put("kafka.compression.type", "lz4");
        Map<String, Object> tuned = CaptureLoop.producerProperties(CdcConfig.fromMap(s));
        assertEquals("65536", tuned.get("batch.size"));
        assertEquals("lz4", tuned.get("compression.type"));
        new KafkaProducer<String, byte[]>(tuned).close();
    }

    @Test
    void restartBackoffGrowsExponentiallyUpToTheCapWithBoundedJitter() {
        CdcConfig.Backoff backoff = CdcConfig.fromMap(minimal()).capture().restartBackoff();
        assertEquals(new CdcConfig.Backoff(500, 30_000, 20), backoff, "documented defaults");
        assertEquals(500, backoff.delayMs(1, 0));
        assertEquals(1_000, backoff.delayMs(2, 0));
        assertEquals(16_000, backoff.delayMs(6, 0));
        assertEquals(30_000, backoff.delayMs(7, 0), "capped");
        assertEquals(30_000, backoff.delayMs(10_000, 0), "no overflow");
        assertEquals(24_000, backoff.delayMs(7, 1.0), "jitter shortens by at most 20 %");
        long previous = 0;
        for (int attempt = 1; attempt <= 8; attempt++) {
            long d = backoff.delayMs(attempt, Math.random());
            assertTrue(d >= Math.min(30_000, 500L << (attempt - 1)) * 0.8 && d <= 30_000, "attempt " + attempt + ": " + d);
            previous = d;
        }
        assertTrue(previous >= 24_000);
        var engine = DebeziumProperties.of(CdcConfig.fromMap(minimal()));
        assertEquals("500", engine.getProperty("errors.retry.delay.initial.ms"), "the engine's own retries too");
        assertEquals("30000", engine.getProperty("errors.retry.delay.max.ms"));
        Map<String, String> bad = minimal();
        bad.put("restart.backoff.max.ms", "100");
        assertTrue(assertThrows(CdcException.class, () -> CdcConfig.fromMap(bad)).getMessage()
                .contains("restart.backoff.max.ms"));
    }

    @Test
    void eachInstanceGetsItsOwnServerIdUnlessOneIsSet() {
        Map<String, String> a = minimal();
        a.put("database.kind", "mariadb");
        a.put("instance.id", "host-a-101");
        Map<String, String> b = new HashMap<>(a);
        b.put("instance.id", "host-b-101");
        long idA = CdcConfig.fromMap(a).database().serverId();
        long idB = CdcConfig.fromMap(b).database().serverId();
        assertNotEquals(idA, idB);
        assertTrue(idA >= 10_000 && idA <= 4_294_967_295L, Long.toString(idA));
        assertEquals(idA, CdcConfig.fromMap(a).database().serverId(), "stable for one instance id");
        assertNotEquals(CdcConfig.fromMap(minimal()).standby().instanceId(), "",
                "the default instance id names host and pid");
        a.put("database.server.id", "5400");
        assertEquals(5400, CdcConfig.fromMap(a).database().serverId(), "a set id wins");
        a.put("instance.id", "bad id");
        assertTrue(assertThrows(CdcException.class, () -> CdcConfig.fromMap(a)).getMessage().contains("instance.id"));
        assertEquals(String.valueOf(idA), DebeziumProperties.of(CdcConfig.fromMap(b.entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey,
                        e -> e.getKey().equals("instance.id") ? "host-a-101" : e.getValue()))))
                .getProperty("database.server.id"));
    }

    @Test
    void theStatusTopicGetsTheConfiguredCompactionLagAndTheQueueABytesBound() {
        CdcConfig defaults = CdcConfig.fromMap(minimal());
        assertEquals("604800000", CaptureLoop.catalog(defaults).pipelineStatus().configs()
                .get("min.compaction.lag.ms"));
        Map<String, String> s = minimal();
        s.put("topic.pipeline.status.min.compaction.lag.ms", "60000");
        assertEquals("60000", CaptureLoop.catalog(CdcConfig.fromMap(s)).pipelineStatus().configs()
                .get("min.compaction.lag.ms"));
        assertEquals(String.valueOf(64L << 20), DebeziumProperties.of(defaults).getProperty("max.queue.size.in.bytes"));
        s.put("max.queue.bytes", "1000");
        assertTrue(assertThrows(CdcException.class, () -> CdcConfig.fromMap(s)).getMessage()
                .contains("max.queue.bytes"));
    }
}
