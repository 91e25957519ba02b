package io.changestream.alerts.destination.limits;

import io.changestream.alerts.destination.LocalReceiver;
import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.Destination;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    private final TestClock clock = TestClock.frozenAt(Instant.parse("2026-01-01T00:00:00Z"));
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
                assertEquals(Kind.RETRY, webhook.deliver(toDead).outcome());
            }
            assertEquals(CircuitState.OPEN, webhook.state(CircuitBreakingDestination.key(toDead)));
            DeliveryResult refused = webhook.deliver(toDead);
            assertEquals(Kind.RETRY, refused.outcome());
            assertEquals(Duration.ofSeconds(30), refused.retryAfter());
            assertEquals(3, dead.received().size(), "an open circuit makes no call");
            assertEquals(Kind.DELIVERED, webhook.deliver(toOk).outcome());
            assertEquals(CircuitState.CLOSED, webhook.state(CircuitBreakingDestination.key(toOk)));

            dead.always(200);
            clock.advance(Duration.ofSeconds(30));
            assertEquals(Kind.DELIVERED, webhook.deliver(toDead).outcome(), "the half-open trial");
            assertEquals(CircuitState.CLOSED, webhook.state(CircuitBreakingDestination.key(toDead)));
            assertEquals(4, dead.received().size());
        }
    }

    /** Regression (issue 12): a half-open trial that threw left the circuit half-open with its trial slot taken. */
    @Test
    void recoversAfterAHalfOpenTrialThatThrew() {
        try (LocalReceiver receiver = new LocalReceiver()) {
            receiver.always(503);
            java.util.concurrent.atomic.AtomicBoolean explode = new java.util.concurrent.atomic.AtomicBoolean();
            WebhookDestination real = new WebhookDestination(
                    new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(), clock));
            Destination throwing = new Destination() {
                @Override
                public SubscriptionType type() {
                    return SubscriptionType.WEBHOOK;
                }

                @Override
                public DeliveryResult deliver(DeliveryRequest request) {
                    if (explode.get()) {
                        throw new IllegalStateException("bug in a destination");
                    }
                    return real.deliver(request);
                }
            };
            CircuitBreakingDestination webhook = new CircuitBreakingDestination(throwing, settings, clock);
            SubscriptionDestination dest = Fixtures.destination("flaky", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.uri("/") + "\"}");
            DeliveryRequest request = DeliveryRequest.of(Fixtures.subscription(dest), dest, Fixtures.event(), 1);
            for (int i = 0; i < 3; i++) {
                webhook.deliver(request);
            }
            assertEquals(CircuitState.OPEN, webhook.state(CircuitBreakingDestination.key(request)));

            clock.advance(Duration.ofSeconds(30));
            explode.set(true);
            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> webhook.deliver(request));
            assertEquals(CircuitState.OPEN, webhook.state(CircuitBreakingDestination.key(request)), "a throwing trial re-opens the circuit");

            explode.set(false);
            receiver.always(200);
            clock.advance(Duration.ofSeconds(30));
            assertEquals(Kind.DELIVERED, webhook.deliver(request).outcome(), "the next trial goes through");
            assertEquals(CircuitState.CLOSED, webhook.state(CircuitBreakingDestination.key(request)));
        }
    }

    @Test
    void aTrialWhoseOutcomeIsNeverRecordedIsGivenUpAfterAnotherOpenDuration() {
        CircuitBreaker breaker = new CircuitBreaker(settings, clock);
        for (int i = 0; i < 3; i++) {
            breaker.record(DeliveryResult.retry(null, "503"));
        }
        clock.advance(Duration.ofSeconds(30));
        assertTrue(breaker.tryAcquire(), "the trial (its caller then dies without recording)");
        assertFalse(breaker.tryAcquire());
        clock.advance(Duration.ofSeconds(29));
        assertFalse(breaker.tryAcquire());
        clock.advance(Duration.ofSeconds(1));
        assertTrue(breaker.tryAcquire(), "a new trial once the lost one is given up");
        breaker.record(DeliveryResult.delivered());
        assertEquals(CircuitState.CLOSED, breaker.state());
    }
}
