package io.changestream.alerts.status;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of the {@link DeliveryStatusView}. Immutable, validated.
 *
 * @param ledgerTopic   the {@code alert-ledger} topic
 * @param dlqTopic      the {@code alert-dlq} topic
 * @param groupId       the consumer group whose ledger records count (the ledger key carries it)
 * @param maxEntries        {@link #MAX_ENTRIES}: (subscription, destination) entries kept at most
 * @param dedupeEntries     {@link #DEDUPE_ENTRIES}: recent record keys remembered to count a re-written record once
 * @param catchUp           {@link #CATCH_UP}
 * @param restartBackoff    {@link #RESTART_BACKOFF}
 * @param restartMaxBackoff {@link #RESTART_MAX_BACKOFF}
 * @param maxRestarts       {@link #MAX_RESTARTS}: then the reader is given up and {@code /health/live} fails
 */
public record StatusSettings(String ledgerTopic, String dlqTopic, String groupId, int maxEntries, int dedupeEntries,
                             Duration catchUp, Duration restartBackoff, Duration restartMaxBackoff, int maxRestarts) {

    public static final Setting<Integer> MAX_ENTRIES = Setting.integer("status.maxEntries").defaultsTo(100_000)
            .atLeast(1).doc("(subscription, destination) entries the /status view keeps");
    public static final Setting<Integer> DEDUPE_ENTRIES = Setting.integer("status.dedupeEntries").defaultsTo(200_000)
            .atLeast(1).doc("recent ledger/DLQ keys /status remembers to count a re-written record once");
    public static final Setting<Duration> CATCH_UP = Setting.duration("status.catchUp")
            .defaultsTo(Duration.ofSeconds(2)).notNegative()
            .doc("how long /status waits for its view to reach the topics' ends");
    public static final Setting<Duration> RESTART_BACKOFF = Setting.duration("status.restartBackoff")
            .defaultsTo(Duration.ofSeconds(1)).positive()
            .doc("first wait before a dead /status view reader is restarted");
    public static final Setting<Duration> RESTART_MAX_BACKOFF = Setting.duration("status.restartMaxBackoff")
            .defaultsTo(Duration.ofSeconds(30)).positive().doc("longest wait between /status view reader restarts");
    public static final Setting<Integer> MAX_RESTARTS = Setting.integer("status.maxRestarts").defaultsTo(10)
            .atLeast(0).doc("consecutive failed /status reader restarts before /health/live fails");
    /** The status view's settings. */
    public static final List<Setting<?>> SETTINGS = List.of(MAX_ENTRIES, DEDUPE_ENTRIES, CATCH_UP, RESTART_BACKOFF,
            RESTART_MAX_BACKOFF, MAX_RESTARTS);

    public StatusSettings {
        Objects.requireNonNull(ledgerTopic, "ledgerTopic");
        Objects.requireNonNull(dlqTopic, "dlqTopic");
        Objects.requireNonNull(groupId, "groupId");
        MAX_ENTRIES.check(maxEntries);
        DEDUPE_ENTRIES.check(dedupeEntries);
        CATCH_UP.check(catchUp);
        RESTART_BACKOFF.check(restartBackoff);
        RESTART_MAX_BACKOFF.check(restartMaxBackoff);
        if (restartMaxBackoff.compareTo(restartBackoff) < 0) {
            throw new IllegalArgumentException("status.restartMaxBackoff must be >= status.restartBackoff, was "
                    + restartMaxBackoff);
        }
        MAX_RESTARTS.check(maxRestarts);
    }

    /** The view's settings {@code settings} give, for its topics and group. */
    public static StatusSettings from(SettingsReader settings, String ledgerTopic, String dlqTopic, String groupId) {
        return new StatusSettings(ledgerTopic, dlqTopic, groupId, settings.get(MAX_ENTRIES),
                settings.get(DEDUPE_ENTRIES), settings.get(CATCH_UP), settings.get(RESTART_BACKOFF),
                settings.get(RESTART_MAX_BACKOFF), settings.get(MAX_RESTARTS));
    }

    /** With the default restart settings. */
    public StatusSettings(String ledgerTopic, String dlqTopic, String groupId, int maxEntries, int dedupeEntries,
                          Duration catchUp) {
        this(ledgerTopic, dlqTopic, groupId, maxEntries, dedupeEntries, catchUp, RESTART_BACKOFF.defaultOrFail(),
                RESTART_MAX_BACKOFF.defaultOrFail(), MAX_RESTARTS.defaultOrFail());
    }
}
