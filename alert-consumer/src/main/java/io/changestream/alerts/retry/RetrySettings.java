package io.changestream.alerts.retry;

import io.changestream.alerts.ledger.LedgerSettings;
import io.changestream.runtime.Backoff;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of the retry path (decision 1120), keys {@code retry.*}. Immutable; validated here, messages name the
 * setting.
 *
 * @param retryTopic            the {@code alert-retry} topic
 * @param stateTopic            the {@code alert-destinations} topic
 * @param groupId               the alert service's group (the retry consumers use {@code <groupId>-retry})
 * @param inlineBudget          {@link #INLINE_BUDGET}: longest a pair waits in the runtime's delay queue, from
 *                              its first failure; a retry that would wait past it is handed off
 * @param maxRecordBytes        {@link #MAX_RECORD_BYTES}: largest retry record; a larger pair stays inline
 * @param lanes                 {@link #LANES}: worker threads that handle retry-path send results (sends
 *                              are asynchronous)
 * @param maxHeld               {@link #MAX_HELD}: retry records held in memory in all (beyond, every
 *                              destination holds its head only; the rest stays on the topic and is read again)
 * @param maxHeldPerDestination {@link #MAX_HELD_PER_DESTINATION}: retry records of one destination on one
 *                              partition held in memory; the rest stays on the topic and is read again, and nobody
 *                              else waits for it
 * @param maxConcurrentPerDestination {@link #MAX_CONCURRENT_PER_DESTINATION}: retry records of one destination on
 *                              one partition tried at once (in order per entity; the destination's bulkhead
 *                              bounds what is on the wire)
 * @param recheckInterval       {@link #RECHECK_INTERVAL}: how often a waiting or parked record looks again
 * @param initialBackoff        {@link #INITIAL_BACKOFF}: first wait in the retry path without a Retry-After
 * @param maxBackoff            {@link #MAX_BACKOFF}: longest such wait
 * @param suspendAfterFailures  {@link #SUSPEND_AFTER_FAILURES}: consecutive retry-path failures that suspend a
 *                              destination, 0 = never
 * @param suspendAfterDuration  {@link #SUSPEND_AFTER_DURATION}: failing this long in the retry path suspends it
 * @param maxDestinations       {@link #MAX_DESTINATIONS}: destinations whose state an instance keeps
 * @param dedupeEntries         {@link #DEDUPE_ENTRIES}: recent retry-path settlements remembered
 * @param publishInterval       {@link #PUBLISH_INTERVAL}: how often retry-path progress is published
 * @param stateCatchUp          {@link #STATE_CATCH_UP}: wait at start to read {@code alert-destinations}
 * @param ackTimeout            wait for an ack of a retry or state record ({@code ledger.ackTimeout})
 */
public record RetrySettings(String retryTopic, String stateTopic, String groupId, Duration inlineBudget,
                            int maxRecordBytes, int lanes, int maxHeld, int maxHeldPerDestination,
                            int maxConcurrentPerDestination,
                            Duration recheckInterval,
                            Duration initialBackoff, Duration maxBackoff, int suspendAfterFailures,
                            Duration suspendAfterDuration, int maxDestinations, int dedupeEntries,
                            Duration publishInterval, Duration stateCatchUp, Duration ackTimeout) {

    public static final Setting<Duration> INLINE_BUDGET = Setting.duration("retry.inlineBudget")
            .defaultsTo(Duration.ofSeconds(30)).notNegative().doc("longest a pair waits inline (delay queue) from its "
                    + "first failure; a longer wait hands it to alert-retry");
    public static final Setting<Integer> MAX_RECORD_BYTES = Setting.integer("retry.maxRecordBytes")
            .defaultsTo(1_048_576).atLeast(1).doc("largest retry record; a larger pair stays inline");
    public static final Setting<Integer> LANES = Setting.integer("retry.lanes").defaultsTo(8).atLeast(1)
            .doc("worker threads that handle retry-path send results (sends are asynchronous)");
    public static final Setting<Integer> MAX_HELD = Setting.integer("retry.maxHeld").defaultsTo(8_000).atLeast(1)
            .doc("retry records held in memory in all (beyond: each destination holds its head, the rest is read "
                    + "again from alert-retry)");
    public static final Setting<Integer> MAX_HELD_PER_DESTINATION = Setting.integer("retry.maxHeldPerDestination")
            .defaultsTo(1_000).atLeast(1).doc("retry records of one destination on one partition held in memory (the "
                    + "rest is read again from alert-retry; nobody else waits)");
    public static final Setting<Integer> MAX_CONCURRENT_PER_DESTINATION = Setting.integer(
            "retry.maxConcurrentPerDestination").defaultsTo(8).atLeast(1).doc("retry records of one destination on "
            + "one partition tried at once, in order per entity (those settled out of order are published with the "
            + "progress, so a new owner skips them)");
    public static final Setting<Duration> RECHECK_INTERVAL = Setting.duration("retry.recheckInterval")
            .defaultsTo(Duration.ofSeconds(1)).positive().doc("how often a waiting or parked retry record looks again");
    public static final Setting<Duration> INITIAL_BACKOFF = Setting.duration("retry.initialBackoff")
            .defaultsTo(Duration.ofMinutes(1)).positive().doc("first retry-path wait without a Retry-After");
    public static final Setting<Duration> MAX_BACKOFF = Setting.duration("retry.maxBackoff")
            .defaultsTo(Duration.ofHours(1)).positive().doc("longest retry-path wait without a Retry-After");
    public static final Setting<Integer> SUSPEND_AFTER_FAILURES = Setting.integer("retry.suspendAfterFailures")
            .defaultsTo(20).atLeast(0).doc("consecutive retry-path failures that suspend a destination, 0 = never");
    public static final Setting<Duration> SUSPEND_AFTER_DURATION = Setting.duration("retry.suspendAfterDuration")
            .defaultsTo(Duration.ofDays(3)).positive().doc("failing this long in the retry path suspends a "
                    + "destination");
    public static final Setting<Integer> MAX_DESTINATIONS = Setting.integer("retry.maxDestinations")
            .defaultsTo(10_000).atLeast(1).doc("destinations whose retry state an instance keeps");
    public static final Setting<Integer> DEDUPE_ENTRIES = Setting.integer("retry.dedupeEntries").defaultsTo(100_000)
            .atLeast(1).doc("recent retry-path settlements remembered (a second hand-off of a pair settles once)");
    public static final Setting<Duration> PUBLISH_INTERVAL = Setting.duration("retry.publishInterval")
            .defaultsTo(Duration.ofMillis(500)).positive().doc("how often retry-path progress is published");
    public static final Setting<Duration> STATE_CATCH_UP = Setting.duration("retry.stateCatchUp")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("wait at start to read alert-destinations");
    /** The retry path's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(INLINE_BUDGET, MAX_RECORD_BYTES, LANES, MAX_HELD,
            MAX_HELD_PER_DESTINATION, MAX_CONCURRENT_PER_DESTINATION, RECHECK_INTERVAL, INITIAL_BACKOFF, MAX_BACKOFF,
            SUSPEND_AFTER_FAILURES, SUSPEND_AFTER_DURATION, MAX_DESTINATIONS, DEDUPE_ENTRIES, PUBLISH_INTERVAL,
            STATE_CATCH_UP);

    public RetrySettings {
        Objects.requireNonNull(retryTopic, "retry topic");
        Objects.requireNonNull(stateTopic, "destination state topic");
        Objects.requireNonNull(groupId, "group.id");
        INLINE_BUDGET.check(inlineBudget);
        MAX_RECORD_BYTES.check(maxRecordBytes);
        LANES.check(lanes);
        MAX_HELD.check(maxHeld);
        MAX_HELD_PER_DESTINATION.check(maxHeldPerDestination);
        MAX_CONCURRENT_PER_DESTINATION.check(maxConcurrentPerDestination);
        RECHECK_INTERVAL.check(recheckInterval);
        INITIAL_BACKOFF.check(initialBackoff);
        MAX_BACKOFF.check(maxBackoff);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("retry.maxBackoff must be >= retry.initialBackoff, was " + maxBackoff);
        }
        SUSPEND_AFTER_FAILURES.check(suspendAfterFailures);
        SUSPEND_AFTER_DURATION.check(suspendAfterDuration);
        MAX_DESTINATIONS.check(maxDestinations);
        DEDUPE_ENTRIES.check(dedupeEntries);
        PUBLISH_INTERVAL.check(publishInterval);
        STATE_CATCH_UP.check(stateCatchUp);
        LedgerSettings.ACK_TIMEOUT.check(ackTimeout);
    }

    /** The retry path's settings {@code settings} give, for its two topics, the service's group and the ack wait. */
    public static RetrySettings from(SettingsReader settings, String retryTopic, String stateTopic, String groupId,
                                     Duration ackTimeout) {
        return new RetrySettings(retryTopic, stateTopic, groupId, settings.get(INLINE_BUDGET),
                settings.get(MAX_RECORD_BYTES), settings.get(LANES), settings.get(MAX_HELD),
                settings.get(MAX_HELD_PER_DESTINATION), settings.get(MAX_CONCURRENT_PER_DESTINATION),
                settings.get(RECHECK_INTERVAL), settings.get(INITIAL_BACKOFF), settings.get(MAX_BACKOFF),
                settings.get(SUSPEND_AFTER_FAILURES), settings.get(SUSPEND_AFTER_DURATION),
                settings.get(MAX_DESTINATIONS), settings.get(DEDUPE_ENTRIES), settings.get(PUBLISH_INTERVAL),
                settings.get(STATE_CATCH_UP), ackTimeout);
    }

    /** The retry consumers' group. */
    public String retryGroupId() {
        return groupId + "-retry";
    }

    /** The retry path's backoff after {@code attempt} failures there (doubling, capped). */
    public Duration backoffAfter(int attempt) {
        return Backoff.doubling(initialBackoff, maxBackoff).after(attempt);
    }
}
