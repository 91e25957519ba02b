package io.changestream.alerts.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, item 8: a producer whose writes wait {@code ledger.ackTimeout} reports a send failed before that wait
 * ends (Kafka's default {@code delivery.timeout.ms} is 120 s, twelve times the default ack wait), and a configured
 * delivery timeout that is not below the wait is refused naming both settings.
 */
class ProducerAcksTest {

    @Test
    void theProducerGivesUpBeforeItsCallerDoes() {
        Map<String, Object> props = ProducerAcks.boundedBy(Map.of("bootstrap.servers", "b:9092", "linger.ms", 5),
                Duration.ofSeconds(10), "ledger.ackTimeout");
        assertEquals(9_000, props.get("delivery.timeout.ms"));
        assertEquals(8_995, props.get("request.timeout.ms"), "Kafka needs delivery >= linger + request timeout");
        assertEquals("b:9092", props.get("bootstrap.servers"));
        assertEquals(900L, ProducerAcks.deliveryTimeoutMs(Duration.ofSeconds(1)));
        assertTrue(ProducerAcks.deliveryTimeoutMs(Duration.ofMillis(1)) >= 1);
        Map<String, Object> shortRequest = ProducerAcks.boundedBy(Map.of("request.timeout.ms", "2000"),
                Duration.ofSeconds(10), "ledger.ackTimeout");
        assertEquals(2_000, shortRequest.get("request.timeout.ms"), "a request timeout that fits is kept");
        Map<String, Object> own = ProducerAcks.boundedBy(Map.of("delivery.timeout.ms", "5000"),
                Duration.ofSeconds(10), "ledger.ackTimeout");
        assertEquals(5_000, own.get("delivery.timeout.ms"), "a configured one below the wait is kept");
    }

    @Test
    void aDeliveryTimeoutNotBelowTheAckWaitIsRefusedNamingBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProducerAcks.boundedBy(
                Map.of("delivery.timeout.ms", "120000"), Duration.ofSeconds(10), "ledger.ackTimeout"));
        assertTrue(e.getMessage().contains("kafka.delivery.timeout.ms") && e.getMessage().contains("ledger.ackTimeout"),
                e.getMessage());
    }
}
