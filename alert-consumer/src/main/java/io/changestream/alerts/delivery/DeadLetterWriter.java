package io.changestream.alerts.delivery;

import io.changestream.alerts.metrics.AlertMeter;
import io.changestream.alerts.destination.Redaction;
import io.changestream.alerts.ledger.ProducerAcks;
import io.changestream.runtime.RetryLaterException;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.serde.JsonSerde;
import io.changestream.topics.serde.Serdes;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes {@link FailedEvent}s to {@code alert-dlq} (key {@code subscriptionId/eventId}) and waits for the ack: a
 * pair counts as dead-lettered only once the broker has it, so nothing is dropped. The reason is written through
 * {@link Redaction#reason} (no URL path or query reaches the topic, whoever made the reason). Processor threads;
 * thread-safe.
 * Meter: {@code changestream_alert_dead_letters_total{source}}.
 */
public final class DeadLetterWriter {

    private final String topic;
    private final Producer<String, String> producer;
    private final Duration ackTimeout;
    private final MeterRegistry meters;
    private final JsonSerde<FailedEvent> serde = Serdes.failedEvent();

    /**
     * @param producer   producer (acks=all advised), owned by the caller
     * @param ackTimeout how long a write waits for its ack before the event is retried ({@code ledger.ackTimeout})
     */
    public DeadLetterWriter(String topic, Producer<String, String> producer, Duration ackTimeout,
                            MeterRegistry meters) {
        this.topic = topic;
        this.producer = producer;
        this.ackTimeout = ackTimeout;
        this.meters = meters;
    }

    /**
     * Writes one failed event and waits for the ack.
     *
     * @throws RetryLaterException when it was not acked in time (the runtime retries the event)
     */
    public void write(FailedEvent failed) {
        try {
            writeAsync(failed).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RetryLaterException r ? r : new RetryLaterException(String.valueOf(e), e);
        }
    }

    /**
     * Writes one failed event; the stage completes from the ack (continued off the producer's I/O thread, see
     * {@link ProducerAcks#sendWithin}) or fails with a {@link RetryLaterException} when it was not acked in time.
     */
    public CompletableFuture<Void> writeAsync(FailedEvent event) {
        FailedEvent failed = redacted(event);
        return ProducerAcks.sendWithin(producer, new ProducerRecord<>(topic, failed.key(), serde.toJson(failed)),
                ackTimeout, error -> new RetryLaterException("dead letter " + failed.key() + " not acked within "
                        + ackTimeout.toMillis() + " ms: " + error, error))
                .thenRun(() -> AlertMeter.DEAD_LETTERS.counter()
                        .tag("source", failed.source().name()).register(meters).increment());
    }

    private static FailedEvent redacted(FailedEvent f) {
        String reason = Redaction.reason(f.reason());
        return reason.equals(f.reason()) ? f : new FailedEvent(f.subscriptionId(), f.changeEvent(), reason,
                f.source(), f.retriesLeft(), f.attempts(), f.timestamp(), f.destinationId());
    }
}
