package io.changestream.alerts.replay;

import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.time.Duration;
import java.util.List;

/**
 * Bounds of the replays one instance runs.
 *
 * @param maxRunning    {@link #MAX_RUNNING}: replays running at once on this instance; one more is a 429
 * @param maxKept       {@link #MAX_KEPT}: finished replays whose status this instance keeps (the oldest leave first)
 * @param checkInterval {@link #CHECK_INTERVAL}: how often a running replay's committed offsets are read to see it done
 */
public record ReplaySettings(int maxRunning, int maxKept, Duration checkInterval) {

    public static final Setting<Integer> MAX_RUNNING = Setting.integer("replay.maxRunning").defaultsTo(2)
            .between(1, 64).doc("replays running at once on one instance (each is a consumer group of its own); "
                    + "one more is a 429");
    public static final Setting<Integer> MAX_KEPT = Setting.integer("replay.maxKept").defaultsTo(100)
            .between(1, 10_000).doc("finished replays whose status an instance keeps for GET …/replays");
    public static final Setting<Duration> CHECK_INTERVAL = Setting.duration("replay.checkInterval")
            .defaultsTo(Duration.ofSeconds(1)).check(d -> d.toMillis() >= 100, "must be at least 100 ms")
            .doc("how often a running replay's committed offsets are read to see whether it reached its end");
    /** The replay settings. */
    public static final List<Setting<?>> SETTINGS = List.of(MAX_RUNNING, MAX_KEPT, CHECK_INTERVAL);

    /** The defaults. */
    public static final ReplaySettings DEFAULTS = from(SettingsReader.of(java.util.Map.of()));

    public ReplaySettings {
        MAX_RUNNING.check(maxRunning);
        MAX_KEPT.check(maxKept);
        CHECK_INTERVAL.check(checkInterval);
    }

    /** The replay settings {@code settings} give. */
    public static ReplaySettings from(SettingsReader settings) {
        return new ReplaySettings(settings.get(MAX_RUNNING), settings.get(MAX_KEPT), settings.get(CHECK_INTERVAL));
    }
}
