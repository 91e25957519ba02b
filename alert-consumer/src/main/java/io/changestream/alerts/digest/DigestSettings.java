package io.changestream.alerts.digest;

import io.changestream.alerts.ledger.LedgerSettings;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;

/**
 * Settings of digests (Scheduled subscriptions) and grouping (grouped real-time subscriptions), validated here; each
 * message names its setting.
 *
 * @param topic          the {@code alert-digest} topic
 * @param groupId        consumer group of the flushers ({@code <group.id>.digest}); also the ledger's group
 * @param topChanges     {@link #TOP_CHANGES}: members listed in full per message (and kept in memory per open
 *                       window); the rest are counted only
 * @param maxEntryBytes  {@link #MAX_ENTRY_BYTES}: largest collected event; a larger one is kept without its
 *                       entity and change description
 * @param maxWindows     {@link #MAX_WINDOWS}: open windows one instance holds; beyond, the oldest is sealed and
 *                       sent early
 * @param maxListedBytes {@link #MAX_LISTED_BYTES}: bytes of listed members one instance holds in all; beyond,
 *                       members are counted but not listed
 * @param zone           {@link #ZONE}: time zone of Daily/Weekly/Monthly and of cron expressions
 * @param tick           {@link #TICK}: how often an owner looks for windows that are due
 * @param retryBackoff   {@link #RETRY_BACKOFF}: wait before a failed message is sent again (unless the receiver
 *                       said Retry-After)
 * @param ackTimeout     wait for a digest record's ack ({@code ledger.ackTimeout})
 * @param groupWait      {@link #GROUP_WAIT}: default wait of a new group before its first message
 * @param groupInterval  {@link #GROUP_INTERVAL}: default wait after a group's message before the next
 * @param repeatInterval {@link #REPEAT_INTERVAL}: default time a group is remembered after its last message
 * @param maxInFlightPerDestination {@link #MAX_IN_FLIGHT_PER_DESTINATION}: digest/group messages being sent to one
 *                       destination at once; more wait for the next tick (a slow receiver delays only its own)
 * @param sendTimeout    {@link #SEND_TIMEOUT}: longest one digest/group send may take; then it is cancelled and
 *                       counts as a failed attempt (retried, then dead-lettered, per the subscription's
 *                       {@code retries}); below the flusher consumer's {@code max.poll.interval.ms}
 * @param blockingThreads {@link #BLOCKING_THREADS}: threads that send digest e-mails (SMTP blocks)
 */
public record DigestSettings(String topic, String groupId, int topChanges, int maxEntryBytes, int maxWindows,
                             long maxListedBytes, ZoneId zone, Duration tick, Duration retryBackoff, Duration ackTimeout,
                             Duration groupWait, Duration groupInterval, Duration repeatInterval,
                             int maxInFlightPerDestination, Duration sendTimeout, int blockingThreads) {

    public static final Setting<Integer> TOP_CHANGES = Setting.integer("digest.topChanges").defaultsTo(20)
            .between(1, 1000).doc("changes listed in full per digest/group message (and kept in memory per open "
                    + "window); the rest are counted");
    public static final Setting<Integer> MAX_ENTRY_BYTES = Setting.integer("digest.maxEntryBytes").defaultsTo(16_384)
            .atLeast(1024).doc("largest event kept for a digest; larger ones lose their entity and change "
                    + "description");
    public static final Setting<Integer> MAX_WINDOWS = Setting.integer("digest.maxWindows").defaultsTo(10_000)
            .atLeast(1).doc("open digest/group windows per instance; beyond, the oldest is sent early");
    public static final Setting<Long> MAX_LISTED_BYTES = Setting.number("digest.maxListedBytes").defaultsTo(64L << 20)
            .doc("bytes of listed changes all open windows hold; beyond, changes are counted, not listed");
    public static final Setting<ZoneId> ZONE = Setting.of("digest.zone", ZoneId::of, ZoneId::getId)
            .defaultsTo(ZoneId.of("UTC")).doc("time zone of Daily/Weekly/Monthly and cron schedules");
    public static final Setting<Duration> TICK = Setting.duration("digest.tick").defaultsTo(Duration.ofSeconds(1))
            .positive().doc("how often due digest/group windows are looked for");
    public static final Setting<Duration> RETRY_BACKOFF = Setting.duration("digest.retryBackoff")
            .defaultsTo(Duration.ofSeconds(10)).positive()
            .doc("wait before a failed digest/group message is sent again");
    public static final Setting<Integer> MAX_IN_FLIGHT_PER_DESTINATION = Setting.integer(
            "digest.maxInFlightPerDestination").defaultsTo(4).atLeast(1).doc("digest/group messages being sent to "
            + "one destination at once; more wait (a slow receiver delays only its own)");
    public static final Setting<Duration> SEND_TIMEOUT = Setting.duration("digest.sendTimeout")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("longest one digest/group send may take, then it is "
                    + "cancelled and counts as a failed attempt");
    public static final Setting<Integer> BLOCKING_THREADS = Setting.integer("digest.blockingThreads").defaultsTo(4)
            .atLeast(1).doc("threads that send digest e-mails (SMTP blocks)");
    /** Alertmanager's {@code group_wait} default. */
    public static final Setting<Duration> GROUP_WAIT = Setting.duration("grouping.groupWait")
            .defaultsTo(Duration.ofSeconds(30)).notNegative()
            .doc("default wait of a new group before its first message (Alertmanager group_wait)");
    /** Alertmanager's {@code group_interval} default. */
    public static final Setting<Duration> GROUP_INTERVAL = Setting.duration("grouping.groupInterval")
            .defaultsTo(Duration.ofMinutes(5)).notNegative()
            .doc("default wait after a group's message before its next (Alertmanager group_interval)");
    /** Alertmanager's {@code repeat_interval} default. */
    public static final Setting<Duration> REPEAT_INTERVAL = Setting.duration("grouping.repeatInterval")
            .defaultsTo(Duration.ofHours(4)).notNegative().doc("default time a group is remembered after its last "
                    + "message (Alertmanager repeat_interval; no change is sent twice)");
    /** The digests' and grouping's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(TOP_CHANGES, MAX_ENTRY_BYTES, MAX_WINDOWS,
            MAX_LISTED_BYTES, ZONE, TICK, RETRY_BACKOFF, MAX_IN_FLIGHT_PER_DESTINATION, SEND_TIMEOUT, BLOCKING_THREADS,
            GROUP_WAIT, GROUP_INTERVAL, REPEAT_INTERVAL);

    public DigestSettings {
        Objects.requireNonNull(topic, "digest topic is required");
        Objects.requireNonNull(groupId, "digest group id is required");
        TOP_CHANGES.check(topChanges);
        MAX_ENTRY_BYTES.check(maxEntryBytes);
        MAX_WINDOWS.check(maxWindows);
        if (maxListedBytes < maxEntryBytes) {
            throw new IllegalArgumentException("digest.maxListedBytes must be >= digest.maxEntryBytes ("
                    + maxEntryBytes + "), was " + maxListedBytes);
        }
        ZONE.check(zone);
        TICK.check(tick);
        RETRY_BACKOFF.check(retryBackoff);
        LedgerSettings.ACK_TIMEOUT.check(ackTimeout);
        GROUP_WAIT.check(groupWait);
        GROUP_INTERVAL.check(groupInterval);
        REPEAT_INTERVAL.check(repeatInterval);
        MAX_IN_FLIGHT_PER_DESTINATION.check(maxInFlightPerDestination);
        SEND_TIMEOUT.check(sendTimeout);
        BLOCKING_THREADS.check(blockingThreads);
    }

    /** Defaults for a topic and group (tests). */
    public static DigestSettings of(String topic, String groupId) {
        return from(SettingsReader.of(java.util.Map.of()), topic, groupId, LedgerSettings.ACK_TIMEOUT.defaultOrFail());
    }

    /** The digests' settings {@code settings} give, for the digest topic, the flushers' group and the ack wait. */
    public static DigestSettings from(SettingsReader settings, String topic, String groupId, Duration ackTimeout) {
        return new DigestSettings(topic, groupId, settings.get(TOP_CHANGES), settings.get(MAX_ENTRY_BYTES),
                settings.get(MAX_WINDOWS), settings.get(MAX_LISTED_BYTES), settings.get(ZONE), settings.get(TICK),
                settings.get(RETRY_BACKOFF), ackTimeout, settings.get(GROUP_WAIT), settings.get(GROUP_INTERVAL),
                settings.get(REPEAT_INTERVAL), settings.get(MAX_IN_FLIGHT_PER_DESTINATION), settings.get(SEND_TIMEOUT),
                settings.get(BLOCKING_THREADS));
    }
}
