package io.changestream.alerts.destination.limits;

import java.time.Duration;
import java.util.Objects;

/**
 * How many delivery requests run at once, per destination and in total; immutable, validated here naming the
 * setting ({@code delivery.*}).
 *
 * @param maxConcurrentPerDestination requests to one destination (by destination id) in flight at once
 *                                    ({@code delivery.maxConcurrentPerDestination}, default 32); more wait in that
 *                                    destination's queue, no lane thread waits
 * @param maxQueuedPerDestination     requests waiting for one destination's slot ({@code
 *                                    delivery.maxQueuedPerDestination}, default 100); one more sheds the commit
 *                                    path's queue with it, or is a throttled retry for the retry path (not an
 *                                    attempt, never dropped); also the queue bound of the blocking pool
 * @param maxConnectionsPerHost       pooled HTTP connections per scheme/host/port ({@code
 *                                    delivery.maxConnectionsPerHost}, default 64: polite to one receiver; HTTP/1.1
 *                                    carries one request per connection, so raise it when many destinations share
 *                                    one host and need more than 64 requests in flight together)
 * @param blockingThreads             threads of the pool that runs the destinations without an asynchronous client
 *                                    (SMTP e-mail, OpenLineage) ({@code delivery.blockingThreads}, default 16)
 * @param maxQueueWait                longest a request waits in its destination's queue ({@code
 *                                    delivery.maxQueueWait}, default 30 s); one whose turn comes later is shed to the
 *                                    retry path
 * @param stallTimeout                least time a destination with every slot busy may answer nothing before it
 *                                    counts as stalled ({@code delivery.stallTimeout}, default 2 s): then its queue
 *                                    and new commit-path requests are shed to the retry path instead of waiting
 *                                    behind it
 */
public record DeliveryConcurrency(int maxConcurrentPerDestination, int maxQueuedPerDestination,
                                  int maxConnectionsPerHost, int blockingThreads, Duration maxQueueWait,
                                  Duration stallTimeout) {

    /** The default of {@code delivery.maxQueueWait}. */
    public static final Duration DEFAULT_MAX_QUEUE_WAIT = Duration.ofSeconds(30);
    /** The default of {@code delivery.stallTimeout}. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(2);
    /** The defaults. */
    public static final DeliveryConcurrency DEFAULTS = new DeliveryConcurrency(32, 100, 64, 16,
            DEFAULT_MAX_QUEUE_WAIT, DEFAULT_STALL_TIMEOUT);

    /** With the default {@code delivery.maxQueueWait} and {@code delivery.stallTimeout}. */
    public DeliveryConcurrency(int maxConcurrentPerDestination, int maxQueuedPerDestination,
                               int maxConnectionsPerHost, int blockingThreads) {
        this(maxConcurrentPerDestination, maxQueuedPerDestination, maxConnectionsPerHost, blockingThreads,
                DEFAULT_MAX_QUEUE_WAIT, DEFAULT_STALL_TIMEOUT);
    }

    public DeliveryConcurrency {
        atLeast(maxConcurrentPerDestination, 1, "delivery.maxConcurrentPerDestination");
        atLeast(maxQueuedPerDestination, 0, "delivery.maxQueuedPerDestination");
        atLeast(maxConnectionsPerHost, 1, "delivery.maxConnectionsPerHost");
        atLeast(blockingThreads, 1, "delivery.blockingThreads");
        Objects.requireNonNull(maxQueueWait, "delivery.maxQueueWait is required");
        if (maxQueueWait.isNegative()) {
            throw new IllegalArgumentException("delivery.maxQueueWait must be >= 0, was " + maxQueueWait);
        }
        Objects.requireNonNull(stallTimeout, "delivery.stallTimeout is required");
        if (stallTimeout.isNegative()) {
            throw new IllegalArgumentException("delivery.stallTimeout must be >= 0, was " + stallTimeout);
        }
    }

    private static void atLeast(int value, int min, String name) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
        }
    }
}
