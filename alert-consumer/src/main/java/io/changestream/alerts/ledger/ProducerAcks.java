package io.changestream.alerts.ledger;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A produce as a future: completes from the producer's callback (on its I/O thread: callers continue elsewhere),
 * exceptionally when the send failed or could not be handed to the producer. Never waits for the ack.
 */
public final class ProducerAcks {

    private ProducerAcks() {
    }

    /** Sends {@code record}; the future completes when the broker acked it. */
    public static CompletableFuture<Void> send(Producer<String, String> producer, ProducerRecord<String, String> record) {
        CompletableFuture<Void> acked = new CompletableFuture<>();
        try {
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    acked.completeExceptionally(error);
                } else {
                    acked.complete(null);
                }
            });
        } catch (RuntimeException e) {
            acked.completeExceptionally(e);
        }
        return acked;
    }
}
