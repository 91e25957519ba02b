package io.changestream.logs.limits;

import io.changestream.logs.engine.StreamSettings;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.util.List;
import java.util.Map;

/**
 * How much of the server one caller may hold at once; a request past any of them is answered 429 naming the setting,
 * before the stream is committed. A caller is its bearer token and, apart, its client address (the TCP peer: behind
 * a load balancer, the balancer's address: so the per-address defaults are the server's own caps, and an operator
 * whose clients connect directly lowers them). Each {@code limits.*} setting is declared once ({@link #SETTINGS}).
 * Immutable; validated at construction naming the setting.
 *
 * @param maxConnectionsPerToken   {@link #MAX_CONNECTIONS_PER_TOKEN}: open stream connections of one token
 * @param maxRunsPerToken          {@link #MAX_RUNS_PER_TOKEN}: distinct runs one token streams at once
 * @param maxConnectionsPerAddress {@link #MAX_CONNECTIONS_PER_ADDRESS} (as {@code stream.maxActiveConnections}):
 *                                 open stream connections from one client address, whatever their tokens
 * @param maxRunsPerAddress        {@link #MAX_RUNS_PER_ADDRESS} (as {@code stream.maxActiveRuns}): distinct runs
 *                                 streamed to one client address at once
 */
public record CallerLimits(int maxConnectionsPerToken, int maxRunsPerToken, int maxConnectionsPerAddress,
                           int maxRunsPerAddress) {


    public static final Setting<Integer> MAX_CONNECTIONS_PER_TOKEN = Setting.integer("limits.maxConnectionsPerToken")
            .defaultsTo(100).positive().doc("stream connections one bearer token holds at once");
    public static final Setting<Integer> MAX_RUNS_PER_TOKEN = Setting.integer("limits.maxRunsPerToken")
            .defaultsTo(20).positive().doc("distinct runs one bearer token streams at once");
    public static final Setting<Integer> MAX_CONNECTIONS_PER_ADDRESS = Setting.integer(
            "limits.maxConnectionsPerAddress").defaultsTo(StreamSettings.MAX_ACTIVE_CONNECTIONS.defaultOrFail())
            .positive().doc("stream connections from one client address, whatever its tokens");
    public static final Setting<Integer> MAX_RUNS_PER_ADDRESS = Setting.integer("limits.maxRunsPerAddress")
            .defaultsTo(StreamSettings.MAX_ACTIVE_RUNS.defaultOrFail()).positive()
            .doc("distinct runs streamed to one client address at once");

    /** Every {@code limits.*} setting. */
    public static final List<Setting<?>> SETTINGS = List.of(MAX_CONNECTIONS_PER_TOKEN, MAX_RUNS_PER_TOKEN,
            MAX_CONNECTIONS_PER_ADDRESS, MAX_RUNS_PER_ADDRESS);

    public CallerLimits {
        MAX_CONNECTIONS_PER_TOKEN.check(maxConnectionsPerToken);
        MAX_RUNS_PER_TOKEN.check(maxRunsPerToken);
        MAX_CONNECTIONS_PER_ADDRESS.check(maxConnectionsPerAddress);
        MAX_RUNS_PER_ADDRESS.check(maxRunsPerAddress);
    }

    /**
     * The declared defaults: 100 connections and 20 runs per token; per address the server's own default caps
     * ({@code stream.maxActiveConnections}, {@code stream.maxActiveRuns}), so a proxy in front of the server is not
     * limited below them.
     */
    public static CallerLimits defaults() {
        return from(SettingsReader.of(Map.of()));
    }

    /** The {@code limits.*} settings {@code settings} gives, each absent one at its default. */
    public static CallerLimits from(SettingsReader settings) {
        return new CallerLimits(settings.get(MAX_CONNECTIONS_PER_TOKEN), settings.get(MAX_RUNS_PER_TOKEN),
                settings.get(MAX_CONNECTIONS_PER_ADDRESS), settings.get(MAX_RUNS_PER_ADDRESS));
    }
}
