package io.changestream.alerts.ledger;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A produce as a future: completes from the producer's callback (on its I/O thread: callers continue elsewhere),
 * exceptionally when the send failed or could not be handed to the producer. Never waits for the ack.
 * {@link #sendWithin} continues on this class's own small pool of daemon threads ({@value #CONTINUATION_THREADS}),
 * not the common pool (one thread on a 2-core host) and never the producer's I/O thread.
 */
public final class ProducerAcks {

    /** Threads that run what follows an ack. */
    public static final int CONTINUATION_THREADS = 4;

    private static final Executor CONTINUATIONS = Executors.newFixedThreadPool(CONTINUATION_THREADS,
            new ThreadFactory() {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "cs-producer-ack-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    });

    private ProducerAcks() {
    }

    /** Sends {@code record}; the future completes when the broker acked it. */
    public static CompletableFuture<RecordMetadata> send(Producer<String, String> producer,
                                                         ProducerRecord<String, String> record) {
        CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        try {
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    acked.completeExceptionally(error);
                } else {
                    acked.complete(metadata);
                }
            });
        } catch (RuntimeException e) {
            acked.completeExceptionally(e);
        }
        return acked;
    }

    /**
     * Sends {@code record} and completes with its metadata once acked within {@code timeout}, continued off the
     * producer's I/O thread (what follows an ack may send again, and block on a full buffer); a failed or late ack
     * completes exceptionally with {@code notAcked} of the cause.
     */
    public static CompletableFuture<RecordMetadata> sendWithin(Producer<String, String> producer,
                                                               ProducerRecord<String, String> record, Duration timeout,
                                                               Function<Throwable, ? extends RuntimeException> notAcked) {
        return send(producer, record).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .handleAsync((metadata, error) -> {
                    if (error != null) {
                        throw notAcked.apply(error instanceof CompletionException && error.getCause() != null
                                ? error.getCause() : error);
                    }
                    return metadata;
                }, CONTINUATIONS);
    }
}
