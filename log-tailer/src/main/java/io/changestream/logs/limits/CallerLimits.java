package io.changestream.logs.limits;

/**
 * How much of the server one caller may hold at once; a request past any of them is answered 429 naming the setting,
 * before the stream is committed. A caller is its bearer token and, apart, its client address (the TCP peer: behind
 * a load balancer, the balancer's address: so the per-address defaults are the server's own caps, and an operator
 * whose clients connect directly lowers them). Immutable; validated at construction naming the setting.
 *
 * @param maxConnectionsPerToken   {@code limits.maxConnectionsPerToken} (100): open stream connections of one token
 * @param maxRunsPerToken          {@code limits.maxRunsPerToken} (20): distinct runs one token streams at once
 * @param maxConnectionsPerAddress {@code limits.maxConnectionsPerAddress} (500, as {@code stream.maxActiveConnections}):
 *                                 open stream connections from one client address, whatever their tokens
 * @param maxRunsPerAddress        {@code limits.maxRunsPerAddress} (200, as {@code stream.maxActiveRuns}): distinct
 *                                 runs streamed to one client address at once
 */
public record CallerLimits(int maxConnectionsPerToken, int maxRunsPerToken, int maxConnectionsPerAddress,
                           int maxRunsPerAddress) {

    public CallerLimits {
        positive("limits.maxConnectionsPerToken", maxConnectionsPerToken);
        positive("limits.maxRunsPerToken", maxRunsPerToken);
        positive("limits.maxConnectionsPerAddress", maxConnectionsPerAddress);
        positive("limits.maxRunsPerAddress", maxRunsPerAddress);
    }

    /**
     * The defaults: 100 connections and 20 runs per token; per address the server's own default caps (500, 200), so a
     * proxy in front of the server is not limited below them.
     */
    public static CallerLimits defaults() {
        return new CallerLimits(100, 20, 500, 200);
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, was " + value);
        }
    }
}
