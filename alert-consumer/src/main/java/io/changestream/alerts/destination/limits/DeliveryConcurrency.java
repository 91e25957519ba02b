package io.changestream.alerts.destination.limits;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;

/**
 * How many delivery requests run at once, per destination and in total; immutable, validated here naming the
 * setting ({@code delivery.*}).
 *
 * @param maxConcurrentPerDestination {@link #MAX_CONCURRENT_PER_DESTINATION} (by destination id); more wait in that
 *                                    destination's queue, no lane thread waits
 * @param maxQueuedPerDestination     {@link #MAX_QUEUED_PER_DESTINATION}: one more sheds the commit path's queue with
 *                                    it, or is a throttled retry for the retry path (not an attempt, never dropped);
 *                                    also the queue bound of the blocking pool
 * @param maxConnectionsPerHost       {@link #MAX_CONNECTIONS_PER_HOST}: polite to one receiver; HTTP/1.1 carries one
 *                                    request per connection, so raise it when many destinations share one host and
 *                                    need more than 64 requests in flight together
 * @param blockingThreads             {@link #BLOCKING_THREADS}: the pool that runs the destinations without an
 *                                    asynchronous client (SMTP e-mail, OpenLineage)
 * @param maxQueueWait                {@link #MAX_QUEUE_WAIT}: one whose turn comes later is shed to the retry path
 * @param stallTimeout                {@link #STALL_TIMEOUT}: least time a destination with every slot busy may answer
 *                                    nothing before it counts as stalled; then its queue and new commit-path
 *                                    requests are shed to the retry path instead of waiting behind it
 */
public record DeliveryConcurrency(int maxConcurrentPerDestination, int maxQueuedPerDestination,
                                  int maxConnectionsPerHost, int blockingThreads, Duration maxQueueWait,
                                  Duration stallTimeout) {

    public static final Setting<Integer> MAX_CONCURRENT_PER_DESTINATION = Setting.integer(
            "delivery.maxConcurrentPerDestination").defaultsTo(32).atLeast(1)
            .doc("requests in flight to one destination; more wait in its queue");
    public static final Setting<Integer> MAX_QUEUED_PER_DESTINATION = Setting.integer(
            "delivery.maxQueuedPerDestination").defaultsTo(100).atLeast(0).doc("requests waiting for one "
            + "destination; one more is tried again inline, or sheds the queue with it to the retry path when the "
            + "destination answers slowly and nothing came for a while (not sent, not an attempt)");
    public static final Setting<Duration> MAX_QUEUE_WAIT = Setting.duration("delivery.maxQueueWait")
            .defaultsTo(Duration.ofSeconds(30)).notNegative()
            .doc("longest a request waits for its destination's slot; later, it is shed to the retry path");
    public static final Setting<Duration> STALL_TIMEOUT = Setting.duration("delivery.stallTimeout")
            .defaultsTo(Duration.ofSeconds(2)).notNegative().doc("a destination with every slot busy that answers "
                    + "nothing this long sheds its queue to the retry path");
    public static final Setting<Integer> MAX_CONNECTIONS_PER_HOST = Setting.integer("delivery.maxConnectionsPerHost")
            .defaultsTo(64).atLeast(1).doc("pooled HTTP connections per scheme/host/port");
    public static final Setting<Integer> BLOCKING_THREADS = Setting.integer("delivery.blockingThreads").defaultsTo(16)
            .atLeast(1).doc("threads sending e-mail and OpenLineage (blocking clients)");
    /** The delivery concurrency's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(MAX_CONCURRENT_PER_DESTINATION,
            MAX_QUEUED_PER_DESTINATION, MAX_QUEUE_WAIT, STALL_TIMEOUT, MAX_CONNECTIONS_PER_HOST, BLOCKING_THREADS);

    /** The defaults. */
    public static final DeliveryConcurrency DEFAULTS = from(SettingsReader.of(java.util.Map.of()));

    /** With the default {@code delivery.maxQueueWait} and {@code delivery.stallTimeout}. */
    public DeliveryConcurrency(int maxConcurrentPerDestination, int maxQueuedPerDestination,
                               int maxConnectionsPerHost, int blockingThreads) {
        this(maxConcurrentPerDestination, maxQueuedPerDestination, maxConnectionsPerHost, blockingThreads,
                MAX_QUEUE_WAIT.defaultOrFail(), STALL_TIMEOUT.defaultOrFail());
    }

    public DeliveryConcurrency {
        MAX_CONCURRENT_PER_DESTINATION.check(maxConcurrentPerDestination);
        MAX_QUEUED_PER_DESTINATION.check(maxQueuedPerDestination);
        MAX_CONNECTIONS_PER_HOST.check(maxConnectionsPerHost);
        BLOCKING_THREADS.check(blockingThreads);
        MAX_QUEUE_WAIT.check(maxQueueWait);
        STALL_TIMEOUT.check(stallTimeout);
    }

    /** The concurrency {@code settings} give. */
    public static DeliveryConcurrency from(SettingsReader settings) {
        return new DeliveryConcurrency(settings.get(MAX_CONCURRENT_PER_DESTINATION),
                settings.get(MAX_QUEUED_PER_DESTINATION), settings.get(MAX_CONNECTIONS_PER_HOST),
                settings.get(BLOCKING_THREADS), settings.get(MAX_QUEUE_WAIT), settings.get(STALL_TIMEOUT));
    }
}
