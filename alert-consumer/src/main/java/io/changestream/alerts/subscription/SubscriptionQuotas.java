package io.changestream.alerts.subscription;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.util.List;

/**
 * What one admin API caller can make the service hold or answer (issue 21): each bound is a setting, and a request
 * beyond it is a 400 naming the field and the setting, never a slow service.
 *
 * @param maxSubscriptions {@link #SUBSCRIPTIONS}; one more is refused at create
 * @param maxDestinations  {@link #DESTINATIONS_PER_SUBSCRIPTION}
 * @param maxFilterProgram {@link #FILTER_PROGRAM}: operators, calls and arguments of its rules and actions plus the
 *                         RE2/J programs of its patterns; every event is evaluated against every subscription, so
 *                         this bounds the work one subscription adds per event
 * @param maxListLimit     {@link #LIST_LIMIT}; also the page size when no {@code limit} is given
 */
public record SubscriptionQuotas(int maxSubscriptions, int maxDestinations, long maxFilterProgram, int maxListLimit) {

    public static final Setting<Integer> SUBSCRIPTIONS = Setting.integer("quota.subscriptions").defaultsTo(10_000)
            .atLeast(1).doc("subscriptions the service holds; one more is a 400");
    public static final Setting<Integer> DESTINATIONS_PER_SUBSCRIPTION = Setting.integer(
            "quota.destinationsPerSubscription").defaultsTo(50).atLeast(1)
            .doc("destinations of one subscription; more is a 400");
    /** Ten patterns at {@code filter.maxPatternProgram}. */
    public static final Setting<Long> FILTER_PROGRAM = Setting.number("quota.filterProgram").defaultsTo(100_000L)
            .atLeast(1).doc("size of one subscription's compiled filter (operators, arguments, RE2/J programs); "
                    + "larger is a 400");
    public static final Setting<Integer> LIST_LIMIT = Setting.integer("quota.listLimit").defaultsTo(1_000)
            .between(1, 100_000).doc("largest page (and default limit) of GET /api/v1/events/subscriptions; a larger "
                    + "limit is a 400");
    /** The quotas' settings. */
    public static final List<Setting<?>> SETTINGS = List.of(SUBSCRIPTIONS, DESTINATIONS_PER_SUBSCRIPTION,
            FILTER_PROGRAM, LIST_LIMIT);

    /** The defaults. */
    public static final SubscriptionQuotas DEFAULTS = new SubscriptionQuotas(SUBSCRIPTIONS.defaultOrFail(),
            DESTINATIONS_PER_SUBSCRIPTION.defaultOrFail(), FILTER_PROGRAM.defaultOrFail(), LIST_LIMIT.defaultOrFail());

    public SubscriptionQuotas {
        SUBSCRIPTIONS.check(maxSubscriptions);
        DESTINATIONS_PER_SUBSCRIPTION.check(maxDestinations);
        FILTER_PROGRAM.check(maxFilterProgram);
        LIST_LIMIT.check(maxListLimit);
    }

    /** The quotas {@code settings} give. */
    public static SubscriptionQuotas from(SettingsReader settings) {
        return new SubscriptionQuotas(settings.get(SUBSCRIPTIONS), settings.get(DESTINATIONS_PER_SUBSCRIPTION),
                settings.get(FILTER_PROGRAM), settings.get(LIST_LIMIT));
    }
}
