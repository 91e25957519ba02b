package io.changestream.alerts.subscription;

/**
 * What one admin API caller can make the service hold or answer (issue 21): each bound is a setting, and a request
 * beyond it is a 400 naming the field and the setting, never a slow service.
 *
 * @param maxSubscriptions       subscriptions the service holds ({@code quota.subscriptions}, default
 *                               {@value #DEFAULT_MAX_SUBSCRIPTIONS}); one more is refused at create
 * @param maxDestinations        destinations of one subscription ({@code quota.destinationsPerSubscription}, default
 *                               {@value #DEFAULT_MAX_DESTINATIONS})
 * @param maxFilterProgram       size of one subscription's compiled filter ({@code quota.filterProgram}, default
 *                               {@value #DEFAULT_MAX_FILTER_PROGRAM}: operators, calls and arguments of its rules and
 *                               actions plus the RE2/J programs of its patterns; every event is evaluated against
 *                               every subscription, so this bounds the work one subscription adds per event)
 * @param maxListLimit           largest page of {@code GET …/subscriptions} ({@code quota.listLimit}, default
 *                               {@value #DEFAULT_MAX_LIST_LIMIT}); also the page size when no {@code limit} is given
 */
public record SubscriptionQuotas(int maxSubscriptions, int maxDestinations, long maxFilterProgram, int maxListLimit) {

    /** Default of {@code quota.subscriptions}. */
    public static final int DEFAULT_MAX_SUBSCRIPTIONS = 10_000;
    /** Default of {@code quota.destinationsPerSubscription}. */
    public static final int DEFAULT_MAX_DESTINATIONS = 50;
    /** Default of {@code quota.filterProgram}: ten patterns at {@code filter.maxPatternProgram}. */
    public static final long DEFAULT_MAX_FILTER_PROGRAM = 100_000;
    /** Default of {@code quota.listLimit}. */
    public static final int DEFAULT_MAX_LIST_LIMIT = 1_000;

    /** The defaults. */
    public static final SubscriptionQuotas DEFAULTS = new SubscriptionQuotas(DEFAULT_MAX_SUBSCRIPTIONS,
            DEFAULT_MAX_DESTINATIONS, DEFAULT_MAX_FILTER_PROGRAM, DEFAULT_MAX_LIST_LIMIT);

    public SubscriptionQuotas {
        if (maxSubscriptions < 1) {
            throw new IllegalArgumentException("quota.subscriptions must be >= 1, was " + maxSubscriptions);
        }
        if (maxDestinations < 1) {
            throw new IllegalArgumentException("quota.destinationsPerSubscription must be >= 1, was "
                    + maxDestinations);
        }
        if (maxFilterProgram < 1) {
            throw new IllegalArgumentException("quota.filterProgram must be >= 1, was " + maxFilterProgram);
        }
        if (maxListLimit < 1 || maxListLimit > 100_000) {
            throw new IllegalArgumentException("quota.listLimit must be in [1, 100000], was " + maxListLimit);
        }
    }
}
