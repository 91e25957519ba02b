package io.changestream.alerts.destination.limits;

import io.changestream.alerts.destination.LocalReceiver;
import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.destination.http.HttpSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DestinationRateLimiterTest {

    private final TestClock clock = TestClock.frozenAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final DestinationRateLimiter limiter = new DestinationRateLimiter(RateLimitSettings.DEFAULTS, clock);

    private static DeliveryRequest request(String destinationId, SubscriptionType type, String rateLimit, int n) {
        SubscriptionDestination d = Fixtures.destination(destinationId, type, "{\"endpoint\":\"http://example.com/h\""
                + (rateLimit == null ? "" : ",\"rateLimit\":\"" + rateLimit + "\"") + "}");
        ChangeEvent e = Fixtures.event();
        ChangeEvent event = new ChangeEvent(UUID.nameUUIDFromBytes(("e" + n).getBytes()).toString(), e.eventType(),
                e.entityType(), e.entityId(), e.domains(), e.entityFullyQualifiedName(), e.previousVersion(),
                e.currentVersion(), e.userName(), e.impersonatedBy(), e.timestamp(), e.changeDescription(), e.entity(),
                null, null);
        return DeliveryRequest.of(Fixtures.subscription(d), d, event, 1);
    }

    @Test
    void aBurstOfTheLimitPassesThenRequestsGetSlotsAtTheLimitsPace() {
        for (int i = 0; i < 3; i++) {
            assertEquals(Duration.ZERO, limiter.acquire(request("d", SubscriptionType.WEBHOOK, "3/s", i)));
        }
        Duration fourth = limiter.acquire(request("d", SubscriptionType.WEBHOOK, "3/s", 3));
        Duration fifth = limiter.acquire(request("d", SubscriptionType.WEBHOOK, "3/s", 4));
        assertEquals(333, fourth.toMillis(), 1);
        assertEquals(667, fifth.toMillis(), 1);

        clock.advance(Duration.ofMillis(334));
        assertEquals(Duration.ZERO, limiter.acquire(request("d", SubscriptionType.WEBHOOK, "3/s", 3)),
                "the fourth comes back on its slot and goes without taking another token");
        assertEquals(333, limiter.acquire(request("d", SubscriptionType.WEBHOOK, "3/s", 4)).toMillis(), 1,
                "the fifth is still early: it keeps its slot");
        assertEquals(667, limiter.acquire(request("d", SubscriptionType.WEBHOOK, "3/s", 5)).toMillis(), 1,
                "a new one queues behind the slots already given");
    }

    @Test
    void aRequestBackTooLateOnItsSlotQueuesAgainSoLateOnesNeverBunch() {
        for (int i = 0; i < 2; i++) {
            limiter.acquire(request("d", SubscriptionType.WEBHOOK, "2/s", i));
        }
        assertEquals(500, limiter.acquire(request("d", SubscriptionType.WEBHOOK, "2/s", 2)).toMillis(), 1);
        assertEquals(1000, limiter.acquire(request("d", SubscriptionType.WEBHOOK, "2/s", 3)).toMillis(), 1);
        clock.advance(Duration.ofMillis(1100));
        assertEquals(Duration.ZERO, limiter.acquire(request("d", SubscriptionType.WEBHOOK, "2/s", 3)),
                "on its slot, 100 ms late");
        Duration late = limiter.acquire(request("d", SubscriptionType.WEBHOOK, "2/s", 2));
        assertTrue(late.toMillis() > 0, "600 ms late (more than one interval): not sent together with the other");
    }

    @Test
    void destinationsHaveTheirOwnBuckets() {
        for (int i = 0; i < 10; i++) {
            limiter.acquire(request("slow", SubscriptionType.WEBHOOK, "1/min", i));
        }
        for (int i = 0; i < 100; i++) {
            assertEquals(Duration.ZERO, limiter.acquire(request("fast", SubscriptionType.WEBHOOK, null, i)));
        }
        assertTrue(limiter.acquire(request("slow", SubscriptionType.WEBHOOK, "1/min", 99)).toSeconds() >= 60);
    }

    @Test
    void eachTypeHasANamedDefault() {
        assertEquals(RateLimit.parse("1/s"), limiter.limitOf(request("s", SubscriptionType.SLACK, null, 0)
                .destination()));
        assertEquals(Duration.ZERO, limiter.acquire(request("s", SubscriptionType.SLACK, null, 0)));
        assertEquals(1000, limiter.acquire(request("s", SubscriptionType.SLACK, null, 1)).toMillis(), 1);
        assertEquals(RateLimit.OFF, limiter.limitOf(request("w", SubscriptionType.WEBHOOK, null, 0).destination()));
        assertEquals("4/s", RateLimitSettings.DEFAULTS.defaultFor(SubscriptionType.MS_TEAMS).toString());
        assertEquals("destinations.rateLimit.msTeams", RateLimitSettings.key(SubscriptionType.MS_TEAMS));
    }

    @Test
    void aReceiversRetryAfterPausesThatDestinationOnlyEvenWithoutALimit() {
        DeliveryRequest hit = request("busy", SubscriptionType.WEBHOOK, null, 0);
        limiter.observe(hit, DeliveryResult.retry(Duration.ofSeconds(2), "HTTP 429"));

        assertEquals(2000, limiter.acquire(request("busy", SubscriptionType.WEBHOOK, null, 1)).toMillis());
        assertEquals(Duration.ZERO, limiter.acquire(request("idle", SubscriptionType.WEBHOOK, null, 1)));
        clock.advance(Duration.ofSeconds(2));
        assertEquals(Duration.ZERO, limiter.acquire(request("busy", SubscriptionType.WEBHOOK, null, 1)));
    }

    @Test
    void aPauseOfALimitedDestinationSlotsRequestsAfterIt() {
        limiter.observe(request("d", SubscriptionType.WEBHOOK, "10/s", 0),
                DeliveryResult.retry(Duration.ofSeconds(3), "HTTP 429"));
        Duration first = limiter.acquire(request("d", SubscriptionType.WEBHOOK, "10/s", 1));
        Duration second = limiter.acquire(request("d", SubscriptionType.WEBHOOK, "10/s", 2));
        assertEquals(3000, first.toMillis(), 1, "the first when the receiver asked");
        assertEquals(3100, second.toMillis(), 1, "then at the limit's pace, no burst");
    }

    @Test
    void waitsAreBoundedByMaxWait() {
        DestinationRateLimiter bounded = new DestinationRateLimiter(new RateLimitSettings(Map.of(),
                Duration.ofSeconds(10), 100, 100), clock);
        bounded.acquire(request("d", SubscriptionType.WEBHOOK, "1/h", 0));
        assertEquals(Duration.ofSeconds(10), bounded.acquire(request("d", SubscriptionType.WEBHOOK, "1/h", 1)));
    }

    @Test
    void aBadLimitIsRefusedAtSaveNamingTheField() {
        try (DestinationRegistry registry = new DestinationRegistry(new DestinationSettings(
                HttpSettings.DEFAULTS.allowingPrivateAddresses(), MessageSettings.DEFAULTS,
                CircuitBreakerSettings.DEFAULTS, null, io.changestream.alerts.destination.lineage.LineageSettings
                .DEFAULTS), clock, new SimpleMeterRegistry(), null)) {
            for (String bad : new String[] {"fast", "10/week", "0/s", "-1/s"}) {
                DestinationConfigException e = assertThrows(DestinationConfigException.class,
                        () -> registry.validate(request("d", SubscriptionType.WEBHOOK, bad, 0).destination()));
                assertEquals("config.rateLimit", e.field(), bad);
            }
            registry.validate(request("d", SubscriptionType.WEBHOOK, "120/min", 0).destination());
        }
    }

    @Test
    void throughTheRegistryAHeldBackRequestIsARetryThatNeverReachesTheReceiver() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (LocalReceiver receiver = new LocalReceiver();
             DestinationRegistry registry = new DestinationRegistry(new DestinationSettings(
                     HttpSettings.DEFAULTS.allowingPrivateAddresses(), MessageSettings.DEFAULTS,
                     CircuitBreakerSettings.DEFAULTS, null,
                     io.changestream.alerts.destination.lineage.LineageSettings.DEFAULTS), clock, meters, null)) {
            SubscriptionDestination d = Fixtures.destination("d", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.uri("/h") + "\",\"rateLimit\":\"1/min\"}");
            DeliveryRequest first = DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1);
            DeliveryRequest second = request("d", SubscriptionType.WEBHOOK, null, 7);
            second = DeliveryRequest.of(first.subscription(), d, second.event(), 1);

            assertEquals(Kind.DELIVERED, registry.deliver(first).outcome());
            DeliveryResult held = registry.deliver(second);
            assertEquals(Kind.RETRY, held.outcome());
            assertEquals(60, held.retryAfter().toSeconds());
            assertTrue(held.reason().contains("rate limit"), held.reason());
            assertEquals(1, receiver.received().size());
            assertEquals(1.0, meters.get("changestream.alert.throttled").counter().count());
            assertEquals(CircuitState.CLOSED, registry.circuitState(second), "held back is not a failure");

            receiver.then(429, Map.of("Retry-After", "30"));
            clock.advance(Duration.ofSeconds(60));
            assertEquals(Kind.RETRY, registry.deliver(second).outcome(), "sent on its slot, answered 429");
            assertEquals(2, receiver.received().size());
            assertEquals(30, registry.deliver(second).retryAfter().toSeconds(), "paused for the Retry-After");
            assertEquals(2, receiver.received().size());
        }
    }
}
