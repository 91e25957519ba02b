package io.changestream.alerts.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Outcome;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final CircuitBreakerSettings settings = new CircuitBreakerSettings(3, Duration.ofSeconds(30), 1, 100);

    @Test
    void opensAfterTheThresholdHalfOpensAfterTheDurationAndClosesOnSuccess() {
        CircuitBreaker breaker = new CircuitBreaker(settings, clock);
        for (int i = 0; i < 3; i++) {
            assertTrue(breaker.tryAcquire());
            breaker.record(DeliveryResult.retry(null, "503"));
        }
        assertEquals(CircuitState.OPEN, breaker.state());
        assertFalse(breaker.tryAcquire());
        assertEquals(Duration.ofSeconds(30), breaker.remainingOpen());

        clock.advance(Duration.ofSeconds(30));
        assertTrue(breaker.tryAcquire(), "one trial");
        assertEquals(CircuitState.HALF_OPEN, breaker.state());
        assertFalse(breaker.tryAcquire(), "only one trial at a time");
        breaker.record(DeliveryResult.delivered());
        assertEquals(CircuitState.CLOSED, breaker.state());
        assertTrue(breaker.tryAcquire());
    }

    @Test
    void aFailedTrialReopensAndPermanentFailuresCountAsAlive() {
        CircuitBreaker breaker = new CircuitBreaker(settings, clock);
        for (int i = 0; i < 2; i++) {
            breaker.record(DeliveryResult.retry(null, "503"));
        }
        breaker.record(DeliveryResult.permanent("400"));
        breaker.record(DeliveryResult.retry(null, "503"));
        assertEquals(CircuitState.CLOSED, breaker.state(), "a 400 resets the count");

        for (int i = 0; i < 3; i++) {
            breaker.record(DeliveryResult.retry(null, "503"));
        }
        clock.advance(Duration.ofSeconds(31));
        assertTrue(breaker.tryAcquire());
        breaker.record(DeliveryResult.retry(null, "still down"));
        assertEquals(CircuitState.OPEN, breaker.state());
        assertEquals(Duration.ofSeconds(30), breaker.remainingOpen());
    }

    @Test
    void aDeadEndpointOpensItsCircuitOthersAreUnaffectedAndItClosesWhenBack() {
        try (LocalReceiver dead = new LocalReceiver(); LocalReceiver healthy = new LocalReceiver()) {
            dead.always(503);
            CircuitBreakingDestination webhook = new CircuitBreakingDestination(new WebhookDestination(
                    new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(), clock)), settings, clock);
            SubscriptionDestination deadDest = Fixtures.destination("dead", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + dead.uri("/") + "\"}");
            SubscriptionDestination okDest = Fixtures.destination("ok", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + healthy.uri("/") + "\"}");
            EventSubscription sub = Fixtures.subscription(deadDest, okDest);
            DeliveryRequest toDead = DeliveryRequest.of(sub, deadDest, Fixtures.event(), 1);
            DeliveryRequest toOk = DeliveryRequest.of(sub, okDest, Fixtures.event(), 1);

            for (int i = 0; i < 3; i++) {
                assertEquals(Outcome.RETRY, webhook.deliver(toDead).outcome());
            }
            assertEquals(CircuitState.OPEN, webhook.state("dead"));
            DeliveryResult refused = webhook.deliver(toDead);
            assertEquals(Outcome.RETRY, refused.outcome());
            assertEquals(Duration.ofSeconds(30), refused.retryAfter());
            assertEquals(3, dead.received().size(), "an open circuit makes no call");
            assertEquals(Outcome.DELIVERED, webhook.deliver(toOk).outcome());
            assertEquals(CircuitState.CLOSED, webhook.state("ok"));

            dead.always(200);
            clock.advance(Duration.ofSeconds(30));
            assertEquals(Outcome.DELIVERED, webhook.deliver(toDead).outcome(), "the half-open trial");
            assertEquals(CircuitState.CLOSED, webhook.state("dead"));
            assertEquals(4, dead.received().size());
        }
    }
}
