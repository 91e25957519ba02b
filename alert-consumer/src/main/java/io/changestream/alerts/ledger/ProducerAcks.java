package io.changestream.alerts.ledger;

import io.changestream.runtime.Stages;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

    /** {@code delivery.timeout.ms}: the producer's bound for reporting success or failure of a send. */
    public static final String DELIVERY_TIMEOUT = "delivery.timeout.ms";
    /** {@code request.timeout.ms}: Kafka needs {@code delivery.timeout.ms >= linger.ms + request.timeout.ms}. */
    public static final String REQUEST_TIMEOUT = "request.timeout.ms";
    /** The producer's default {@code request.timeout.ms}. */
    private static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

    private ProducerAcks() {
    }

    /**
     * The producer's {@code delivery.timeout.ms} for writes that wait {@code ackTimeout} for their ack (issue 21,
     * item 8): a little below it (by a tenth, at most 1 s), so the producer has reported the send as failed — and
     * stopped retrying it — before the caller gives up and retries the event. With Kafka's default of 120 s a write
     * given up after 10 s could still be written up to 110 s later.
     */
    public static long deliveryTimeoutMs(Duration ackTimeout) {
        long ack = ackTimeout.toMillis();
        return Math.max(1, ack - Math.min(1_000, Math.max(1, ack / 10)));
    }

    /**
     * Producer properties with {@link #deliveryTimeoutMs} for {@code ackTimeout} and a {@code request.timeout.ms}
     * that fits it with {@code linger.ms} (the given one or Kafka's 30 s, lowered when it does not fit).
     *
     * @throws IllegalArgumentException when {@code props} set a {@code delivery.timeout.ms} not below the ack wait,
     *                                  naming both settings
     */
    public static Map<String, Object> boundedBy(Map<String, Object> props, Duration ackTimeout, String ackSetting) {
        Map<String, Object> out = new HashMap<>(props);
        long delivery = deliveryTimeoutMs(ackTimeout);
        Object given = props.get(DELIVERY_TIMEOUT);
        if (given != null) {
            long wanted = Long.parseLong(given.toString().strip());
            if (wanted >= ackTimeout.toMillis()) {
                throw new IllegalArgumentException("kafka." + DELIVERY_TIMEOUT + " (" + wanted + " ms) must be below "
                        + ackSetting + " (" + ackTimeout.toMillis() + " ms): a write reported as not acked could "
                        + "still be written later");
            }
            delivery = wanted;
        }
        Object lingerGiven = props.get("linger.ms");
        long linger = lingerGiven == null ? 0 : Long.parseLong(lingerGiven.toString().strip());
        Object requestGiven = props.get(REQUEST_TIMEOUT);
        long request = requestGiven == null ? DEFAULT_REQUEST_TIMEOUT_MS : Long.parseLong(requestGiven.toString()
                .strip());
        out.put(DELIVERY_TIMEOUT, (int) delivery);
        out.put(REQUEST_TIMEOUT, (int) Math.max(1, Math.min(request, delivery - linger)));
        return out;
    }

    /** Sends {@code record}; the future completes when the broker acked it. */
    public static <V> CompletableFuture<RecordMetadata> send(Producer<String, V> producer,
                                                             ProducerRecord<String, V> record) {
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
    public static <V> CompletableFuture<RecordMetadata> sendWithin(Producer<String, V> producer,
                                                                   ProducerRecord<String, V> record, Duration timeout,
                                                                   Function<Throwable, ? extends RuntimeException>
                                                                           notAcked) {
        return send(producer, record).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .handleAsync((metadata, error) -> {
                    if (error != null) {
                        throw notAcked.apply(Stages.unwrap(error));
                    }
                    return metadata;
                }, CONTINUATIONS);
    }
}
