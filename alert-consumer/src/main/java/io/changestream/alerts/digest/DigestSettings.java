package io.changestream.alerts.digest;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;

/**
 * Settings of digests (Scheduled subscriptions) and grouping (grouped real-time subscriptions), validated here; each
 * message names its setting.
 *
 * @param topic          the {@code alert-digest} topic
 * @param groupId        consumer group of the flushers ({@code <group.id>.digest}); also the ledger's group
 * @param topChanges     {@code digest.topChanges}: members listed in full per message (and kept in memory per open
 *                       window); the rest are counted only
 * @param maxEntryBytes  {@code digest.maxEntryBytes}: largest collected event; a larger one is kept without its
 *                       entity and change description
 * @param maxWindows     {@code digest.maxWindows}: open windows one instance holds; beyond, the oldest is sealed and
 *                       sent early
 * @param maxListedBytes {@code digest.maxListedBytes}: bytes of listed members one instance holds in all; beyond,
 *                       members are counted but not listed
 * @param zone           {@code digest.zone}: time zone of Daily/Weekly/Monthly and of cron expressions
 * @param tick           {@code digest.tick}: how often an owner looks for windows that are due
 * @param retryBackoff   {@code digest.retryBackoff}: wait before a failed message is sent again (unless the receiver
 *                       said Retry-After)
 * @param ackTimeout     wait for a digest record's ack ({@code ledger.ackTimeout})
 * @param groupWait      {@code grouping.groupWait}: default wait of a new group before its first message
 * @param groupInterval  {@code grouping.groupInterval}: default wait after a group's message before the next
 * @param repeatInterval {@code grouping.repeatInterval}: default time a group is remembered after its last message
 * @param maxInFlightPerDestination {@code digest.maxInFlightPerDestination}: digest/group messages being sent to one
 *                       destination at once; more wait for the next tick (a slow receiver delays only its own)
 * @param sendTimeout    {@code digest.sendTimeout}: longest one digest/group send may take; then it is cancelled and
 *                       counts as a failed attempt (retried, then dead-lettered, per the subscription's
 *                       {@code retries}); below the flusher consumer's {@code max.poll.interval.ms}
 * @param blockingThreads {@code digest.blockingThreads}: threads that send digest e-mails (SMTP blocks)
 */
public record DigestSettings(String topic, String groupId, int topChanges, int maxEntryBytes, int maxWindows,
                             long maxListedBytes, ZoneId zone, Duration tick, Duration retryBackoff, Duration ackTimeout,
                             Duration groupWait, Duration groupInterval, Duration repeatInterval,
                             int maxInFlightPerDestination, Duration sendTimeout, int blockingThreads) {

    /** Alertmanager's {@code group_wait} default. */
    public static final Duration DEFAULT_GROUP_WAIT = Duration.ofSeconds(30);
    /** Alertmanager's {@code group_interval} default. */
    public static final Duration DEFAULT_GROUP_INTERVAL = Duration.ofMinutes(5);
    /** Alertmanager's {@code repeat_interval} default. */
    public static final Duration DEFAULT_REPEAT_INTERVAL = Duration.ofHours(4);

    public DigestSettings {
        Objects.requireNonNull(topic, "digest topic is required");
        Objects.requireNonNull(groupId, "digest group id is required");
        if (topChanges < 1 || topChanges > 1000) {
            throw new IllegalArgumentException("digest.topChanges must be between 1 and 1000, was " + topChanges);
        }
        if (maxEntryBytes < 1024) {
            throw new IllegalArgumentException("digest.maxEntryBytes must be >= 1024, was " + maxEntryBytes);
        }
        if (maxWindows < 1) {
            throw new IllegalArgumentException("digest.maxWindows must be >= 1, was " + maxWindows);
        }
        if (maxListedBytes < maxEntryBytes) {
            throw new IllegalArgumentException("digest.maxListedBytes must be >= digest.maxEntryBytes ("
                    + maxEntryBytes + "), was " + maxListedBytes);
        }
        Objects.requireNonNull(zone, "digest.zone is required");
        positive(tick, "digest.tick");
        positive(retryBackoff, "digest.retryBackoff");
        positive(ackTimeout, "ledger.ackTimeout");
        notNegative(groupWait, "grouping.groupWait");
        notNegative(groupInterval, "grouping.groupInterval");
        notNegative(repeatInterval, "grouping.repeatInterval");
        if (maxInFlightPerDestination < 1) {
            throw new IllegalArgumentException("digest.maxInFlightPerDestination must be >= 1, was "
                    + maxInFlightPerDestination);
        }
        positive(sendTimeout, "digest.sendTimeout");
        if (blockingThreads < 1) {
            throw new IllegalArgumentException("digest.blockingThreads must be >= 1, was " + blockingThreads);
        }
    }

    /** Defaults for a topic and group (tests). */
    public static DigestSettings of(String topic, String groupId) {
        return new DigestSettings(topic, groupId, 20, 16_384, 10_000, 64L << 20, ZoneId.of("UTC"), Duration.ofSeconds(1),
                Duration.ofSeconds(10), Duration.ofSeconds(10), DEFAULT_GROUP_WAIT, DEFAULT_GROUP_INTERVAL,
                DEFAULT_REPEAT_INTERVAL, 4, Duration.ofSeconds(30), 4);
    }

    private static void positive(Duration d, String name) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + d);
        }
    }

    private static void notNegative(Duration d, String name) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(name + " must be a duration >= 0, was " + d);
        }
    }
}
