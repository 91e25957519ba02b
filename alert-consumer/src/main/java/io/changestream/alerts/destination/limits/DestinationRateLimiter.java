package io.changestream.alerts.destination.limits;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.SubscriptionDestination;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One token bucket per destination (keyed like the circuit breakers: the destination id), so a limited or throttled
 * destination waits while every other destination runs at full speed. Never blocks: a request without a token gets
 * a reserved slot and is told to come back then (a RETRY with that wait); when it comes back on time (at most one
 * token interval late) it is let through on its slot without taking another token, so throttled requests are spread
 * at the limit's pace instead of returning together; one that comes back later (its event waited for another
 * destination) queues again, so the limit holds in every interval. A receiver's {@code Retry-After} (429, 503) pauses that destination's bucket until then: requests that
 * arrive meanwhile are slotted after it instead of being sent. Thread-safe (one lock per bucket); the time comes
 * from the injected clock.
 */
public final class DestinationRateLimiter {

    private final RateLimitSettings settings;
    private final Clock clock;
    private final Map<String, Bucket> buckets;

    public DestinationRateLimiter(RateLimitSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.buckets = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
                return size() > settings.maxDestinations();
            }
        });
    }

    /**
     * The limit of a destination: its {@code config.rateLimit}, else its type's default.
     *
     * @throws DestinationConfigException naming {@code config.rateLimit}
     */
    public RateLimit limitOf(SubscriptionDestination destination) {
        JsonNode config = destination.config();
        JsonNode own = config == null ? null : config.get("rateLimit");
        if (own == null || own.isNull()) {
            return settings.defaultFor(destination.type());
        }
        if (!own.isTextual()) {
            throw new DestinationConfigException("config.rateLimit", "must be a string like 120/min or off");
        }
        try {
            return RateLimit.parse(own.asText());
        } catch (IllegalArgumentException e) {
            throw new DestinationConfigException("config.rateLimit", e.getMessage());
        }
    }

    /**
     * Takes a token for a request (one per request or batch): ZERO when it may be sent now, else how long to wait
     * before coming back.
     */
    public Duration acquire(DeliveryRequest request) {
        RateLimit limit;
        try {
            limit = limitOf(request.destination());
        } catch (DestinationConfigException e) {
            return Duration.ZERO; // the destination itself answers PERMANENT for its config
        }
        if (!limit.limits()) {
            Bucket paused = buckets.get(CircuitBreakingDestination.key(request));
            return paused == null || paused.limit.limits() ? Duration.ZERO
                    : paused.acquire(request.idempotencyKey(), nanos());
        }
        return bucket(request, limit).acquire(request.idempotencyKey(), nanos());
    }

    /** Records a delivery's result: a RETRY with a receiver's wait pauses the destination until then. */
    public void observe(DeliveryRequest request, DeliveryResult result) {
        if (result.outcome() != DeliveryResult.Kind.RETRY || result.retryAfter() == null
                || result.retryAfter().isZero()) {
            return;
        }
        RateLimit limit;
        try {
            limit = limitOf(request.destination());
        } catch (DestinationConfigException e) {
            return;
        }
        bucket(request, limit.limits() ? limit : RateLimit.OFF).pause(nanos() + result.retryAfter().toNanos());
    }

    /** Ends a receiver's pause of the request's destination now (it was resumed by hand, decision 1120). */
    public void resume(DeliveryRequest request) {
        Bucket bucket = buckets.get(CircuitBreakingDestination.key(request));
        if (bucket != null) {
            bucket.unpause(nanos());
        }
    }

    /** How many destinations hold a bucket. */
    public int destinations() {
        return buckets.size();
    }

    private Bucket bucket(DeliveryRequest request, RateLimit limit) {
        String key = CircuitBreakingDestination.key(request);
        synchronized (buckets) {
            Bucket bucket = buckets.get(key);
            if (bucket == null || !bucket.limit.equals(limit)) {
                bucket = new Bucket(limit, nanos(), settings);
                buckets.put(key, bucket);
            }
            return bucket;
        }
    }

    private long nanos() {
        Duration since = Duration.between(java.time.Instant.EPOCH, clock.instant());
        return since.toNanos();
    }

    /** One destination's bucket; every method holds its lock. */
    private static final class Bucket {
        private final RateLimit limit;
        private final RateLimitSettings settings;
        private final double perNano;
        /** How late a request may come back on its slot: one token interval, at most 1 s. */
        private final long lateness;
        /** Reserved slots by idempotency key, in the order they were given (so also by slot time). */
        private final LinkedHashMap<String, Long> slots = new LinkedHashMap<>();
        private double tokens;
        private long refilledAt;

        Bucket(RateLimit limit, long now, RateLimitSettings settings) {
            this.limit = limit;
            this.settings = settings;
            this.perNano = limit.limits() ? limit.tokensPerNano() : 0;
            this.lateness = limit.limits() ? Math.min(limit.period().toNanos() / limit.requests(), 1_000_000_000L)
                    : 0;
            this.tokens = limit.limits() ? limit.requests() : 0;
            this.refilledAt = now;
        }

        synchronized Duration acquire(String requestKey, long now) {
            refill(now);
            Long slot = slots.remove(requestKey);
            if (slot != null) {
                if (slot > now) {
                    slots.put(requestKey, slot);
                    return Duration.ofNanos(slot - now);
                }
                if (now - slot <= lateness) {
                    return Duration.ZERO;
                }
                // back too late: its slot's time has passed unused; sending now would bunch it with later slots
            }
            expireSlots(now);
            boolean paused = refilledAt > now;
            if (perNano == 0) {
                // unlimited, only paused by a receiver: everyone may come back when the pause ends
                return paused ? Duration.ofNanos(Math.min(refilledAt - now, settings.maxWait().toNanos()))
                        : Duration.ZERO;
            }
            if (tokens >= 1 && !paused) {
                tokens -= 1;
                return Duration.ZERO;
            }
            // the time at which the bucket, counting the slots already given, holds a token for this request
            long start = Math.max(now, refilledAt);
            long wait = (long) Math.ceil((1 - tokens) / perNano);
            long at = start + wait;
            if (at - now > settings.maxWait().toNanos() || slots.size() >= settings.maxReservations()) {
                return Duration.ofNanos(Math.min(at - now, settings.maxWait().toNanos()));
            }
            tokens -= 1;
            slots.put(requestKey, at);
            return Duration.ofNanos(at - now);
        }

        /** A receiver asked for a pause: one token at {@code until}, none before; the slots given are void. */
        synchronized void pause(long until) {
            if (until <= refilledAt) {
                return;
            }
            tokens = Math.min(1, limit.requests());
            refilledAt = until;
            slots.clear();
        }

        /** The pause ends now; the limit's own refill goes on from here. */
        synchronized void unpause(long now) {
            if (refilledAt > now) {
                refilledAt = now;
                slots.clear();
            }
        }

        private void refill(long now) {
            if (now <= refilledAt) {
                return;
            }
            if (perNano > 0) {
                tokens = Math.min(limit.requests(), tokens + (now - refilledAt) * perNano);
            }
            refilledAt = now;
        }

        /** Slots whose request did not come back within the limit's period are given up. */
        private void expireSlots(long now) {
            long grace = limit.period().toNanos() + settings.maxWait().toNanos();
            Iterator<Map.Entry<String, Long>> it = slots.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<String, Long> e = it.next();
                if (e.getValue() + grace >= now) {
                    return;
                }
                it.remove();
            }
        }
    }
}
