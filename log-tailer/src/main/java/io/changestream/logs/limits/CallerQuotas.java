package io.changestream.logs.limits;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Counts what each caller holds — open stream connections and the distinct runs they are on, per bearer token and
 * per client address — and refuses a new stream past {@link CallerLimits}. A granted stream is a {@link Lease}; its
 * release (when the viewer ends, for whatever reason) gives both counts back, once. Tokens are kept only as a
 * SHA-256 digest. Request threads acquire, any thread releases; every method is synchronized (one map update per
 * stream open and close). Callers with nothing open are forgotten, so the maps hold only live callers.
 */
public final class CallerQuotas {

    /** What one caller holds: connections, and connections per run (the key count is the runs). */
    private static final class Held {
        private int connections;
        private final Map<String, Integer> runs = new HashMap<>();
    }

    /** A granted stream; {@link #release()} gives it back (idempotent). */
    public final class Lease {
        private final String token;
        private final String address;
        private final String run;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(String token, String address, String run) {
            this.token = token;
            this.address = address;
            this.run = run;
        }

        /** Gives the connection and its run back to both callers; later calls do nothing. */
        public void release() {
            if (released.compareAndSet(false, true)) {
                CallerQuotas.this.release(this);
            }
        }
    }

    /** The outcome of {@link #acquire}: a lease, or the message naming the limit that refused it. */
    public record Grant(Lease lease, String refusal) {

        /** True when the stream may open. */
        public boolean granted() {
            return lease != null;
        }
    }

    private final CallerLimits limits;
    private final Map<String, Held> byToken = new HashMap<>();
    private final Map<String, Held> byAddress = new HashMap<>();

    /** Quotas under {@code limits}. */
    public CallerQuotas(CallerLimits limits) {
        this.limits = limits;
    }

    /** The limits in force. */
    public CallerLimits limits() {
        return limits;
    }

    /**
     * One more stream of {@code run} for the caller with {@code token} at {@code address}: a lease, or a refusal
     * whose message names the setting it would pass (nothing counted then).
     */
    public synchronized Grant acquire(String token, String address, String run) {
        String tokenKey = digest(token);
        Held t = byToken.computeIfAbsent(tokenKey, k -> new Held());
        Held a = byAddress.computeIfAbsent(address, k -> new Held());
        String refusal = check(t, run, limits.maxConnectionsPerToken(), "limits.maxConnectionsPerToken",
                limits.maxRunsPerToken(), "limits.maxRunsPerToken", "this token");
        if (refusal == null) {
            refusal = check(a, run, limits.maxConnectionsPerAddress(), "limits.maxConnectionsPerAddress",
                    limits.maxRunsPerAddress(), "limits.maxRunsPerAddress", "this client address");
        }
        if (refusal != null) {
            forgetIfIdle(byToken, tokenKey, t);
            forgetIfIdle(byAddress, address, a);
            return new Grant(null, refusal);
        }
        add(t, run);
        add(a, run);
        return new Grant(new Lease(tokenKey, address, run), null);
    }

    /** Open connections held by {@code token} now. */
    public synchronized int connectionsOf(String token) {
        Held t = byToken.get(digest(token));
        return t == null ? 0 : t.connections;
    }

    /** Callers (tokens plus addresses) holding anything now. */
    public synchronized int callers() {
        return byToken.size() + byAddress.size();
    }

    private synchronized void release(Lease lease) {
        remove(byToken, lease.token, lease.run);
        remove(byAddress, lease.address, lease.run);
    }

    private static String check(Held held, String run, int maxConnections, String connectionsSetting, int maxRuns,
                                String runsSetting, String who) {
        if (held.connections >= maxConnections) {
            return "Too many log streams open for " + who + " (" + connectionsSetting + " = " + maxConnections
                    + "). Close one, or use the paging endpoint (/last).";
        }
        if (!held.runs.containsKey(run) && held.runs.size() >= maxRuns) {
            return "Too many pipeline runs streamed to " + who + " at once (" + runsSetting + " = " + maxRuns
                    + "). Close the stream of another run first.";
        }
        return null;
    }

    private static void add(Held held, String run) {
        held.connections++;
        held.runs.merge(run, 1, Integer::sum);
    }

    private static void remove(Map<String, Held> map, String key, String run) {
        Held held = map.get(key);
        if (held == null) {
            return;
        }
        held.connections--;
        held.runs.computeIfPresent(run, (k, n) -> n == 1 ? null : n - 1);
        forgetIfIdle(map, key, held);
    }

    private static void forgetIfIdle(Map<String, Held> map, String key, Held held) {
        if (held.connections == 0) {
            map.remove(key, held);
        }
    }

    private static String digest(String token) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
