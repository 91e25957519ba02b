package io.changestream.alerts.retry;

import io.changestream.runtime.Backoff;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the retry path (decision 1120), keys {@code retry.*}. Immutable; validated here, messages name the
 * setting.
 *
 * @param retryTopic            the {@code alert-retry} topic
 * @param stateTopic            the {@code alert-destinations} topic
 * @param groupId               the alert service's group (the retry consumers use {@code <groupId>-retry})
 * @param inlineBudget          {@code retry.inlineBudget}: longest a pair waits in the runtime's delay queue, from
 *                              its first failure; a retry that would wait past it is handed off
 * @param maxRecordBytes        {@code retry.maxRecordBytes}: largest retry record; a larger pair stays inline
 * @param lanes                 {@code retry.lanes}: worker threads that handle retry-path send results (sends
 *                              are asynchronous)
 * @param maxHeld               {@code retry.maxHeld}: retry records held in memory in all (beyond, every
 *                              destination holds its head only; the rest stays on the topic and is read again)
 * @param maxHeldPerDestination {@code retry.maxHeldPerDestination}: retry records of one destination on one
 *                              partition held in memory; the rest stays on the topic and is read again, and nobody
 *                              else waits for it
 * @param maxConcurrentPerDestination {@code retry.maxConcurrentPerDestination}: retry records of one destination on
 *                              one partition tried at once (in order per entity; the destination's bulkhead
 *                              bounds what is on the wire)
 * @param recheckInterval       {@code retry.recheckInterval}: how often a waiting or parked record looks again
 * @param initialBackoff        {@code retry.initialBackoff}: first wait in the retry path without a Retry-After
 * @param maxBackoff            {@code retry.maxBackoff}: longest such wait
 * @param suspendAfterFailures  {@code retry.suspendAfterFailures}: consecutive retry-path failures that suspend a
 *                              destination, 0 = never
 * @param suspendAfterDuration  {@code retry.suspendAfterDuration}: failing this long in the retry path suspends it
 * @param maxDestinations       {@code retry.maxDestinations}: destinations whose state an instance keeps
 * @param dedupeEntries         {@code retry.dedupeEntries}: recent retry-path settlements remembered
 * @param publishInterval       {@code retry.publishInterval}: how often retry-path progress is published
 * @param stateCatchUp          {@code retry.stateCatchUp}: wait at start to read {@code alert-destinations}
 * @param ackTimeout            wait for an ack of a retry or state record ({@code ledger.ackTimeout})
 */
public record RetrySettings(String retryTopic, String stateTopic, String groupId, Duration inlineBudget,
                            int maxRecordBytes, int lanes, int maxHeld, int maxHeldPerDestination,
                            int maxConcurrentPerDestination,
                            Duration recheckInterval,
                            Duration initialBackoff, Duration maxBackoff, int suspendAfterFailures,
                            Duration suspendAfterDuration, int maxDestinations, int dedupeEntries,
                            Duration publishInterval, Duration stateCatchUp, Duration ackTimeout) {

    public RetrySettings {
        Objects.requireNonNull(retryTopic, "retry topic");
        Objects.requireNonNull(stateTopic, "destination state topic");
        Objects.requireNonNull(groupId, "group.id");
        nonNegative("retry.inlineBudget", inlineBudget);
        positive("retry.maxRecordBytes", maxRecordBytes);
        positive("retry.lanes", lanes);
        positive("retry.maxHeld", maxHeld);
        positive("retry.maxHeldPerDestination", maxHeldPerDestination);
        positive("retry.maxConcurrentPerDestination", maxConcurrentPerDestination);
        positive("retry.recheckInterval", recheckInterval);
        positive("retry.initialBackoff", initialBackoff);
        positive("retry.maxBackoff", maxBackoff);
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("retry.maxBackoff must be >= retry.initialBackoff, was " + maxBackoff);
        }
        if (suspendAfterFailures < 0) {
            throw new IllegalArgumentException("retry.suspendAfterFailures must be >= 0, was " + suspendAfterFailures);
        }
        positive("retry.suspendAfterDuration", suspendAfterDuration);
        positive("retry.maxDestinations", maxDestinations);
        positive("retry.dedupeEntries", dedupeEntries);
        positive("retry.publishInterval", publishInterval);
        positive("retry.stateCatchUp", stateCatchUp);
        positive("ledger.ackTimeout", ackTimeout);
    }

    /** The retry consumers' group. */
    public String retryGroupId() {
        return groupId + "-retry";
    }

    /** The retry path's backoff after {@code attempt} failures there (doubling, capped). */
    public Duration backoffAfter(int attempt) {
        return Backoff.doubling(initialBackoff, maxBackoff).after(attempt);
    }

    private static void positive(String key, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(key + " must be >= 1, was " + value);
        }
    }

    private static void positive(String key, Duration value) {
        Objects.requireNonNull(value, key);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(key + " must be > 0, was " + value);
        }
    }

    private static void nonNegative(String key, Duration value) {
        Objects.requireNonNull(value, key);
        if (value.isNegative()) {
            throw new IllegalArgumentException(key + " must be >= 0, was " + value);
        }
    }
}
