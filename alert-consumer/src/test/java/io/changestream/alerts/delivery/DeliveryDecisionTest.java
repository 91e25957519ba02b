package io.changestream.alerts.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.delivery.DeliveryDecision.Action;
import io.changestream.alerts.delivery.DeliveryDecision.Facts;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.FailureReason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The delivery decision table (decision 2102), row by row, and the bounded failure-reason label. */
class DeliveryDecisionTest {

    private static final Duration BACKOFF = Duration.ofSeconds(2);

    private static Facts facts(boolean atMostOnce, int attempts, Duration waited) {
        return new Facts(atMostOnce, attempts, 3, waited, Duration.ofSeconds(30), true, BACKOFF);
    }

    private static DeliveryDecision decide(DeliveryResult result) {
        return DeliveryDecision.of(result, facts(false, 1, Duration.ZERO));
    }

    @Test
    void deliveredIsDone() {
        assertEquals(Action.DONE, decide(DeliveryResult.delivered()).action());
    }

    @Test
    void goneSuspendsWithARetryPathAndIsDeadLetteredWithout() {
        DeliveryResult gone = DeliveryResult.permanent("HTTP 410: endpoint removed");
        assertEquals(Action.SUSPEND, decide(gone).action());
        assertEquals(Action.DEAD_LETTER, DeliveryDecision.of(gone, new Facts(false, 1, 3, Duration.ZERO,
                Duration.ofSeconds(30), false, BACKOFF)).action());
        assertEquals(Action.DEAD_LETTER, decide(DeliveryResult.permanent("HTTP 400: bad")).action());
    }

    @Test
    void aShedRequestIsParkedAtOnceEvenForAnAtMostOnceDestination() {
        DeliveryDecision d = DeliveryDecision.of(DeliveryResult.shed(null, "stalled"), facts(true, 1, Duration.ZERO));
        assertEquals(Action.PARK, d.action());
        assertEquals(Duration.ZERO, d.delay());
        assertEquals(Duration.ofSeconds(5), DeliveryDecision.of(DeliveryResult.shed(Duration.ofSeconds(5),
                "circuit open"), facts(false, 1, Duration.ZERO)).delay(), "an open circuit's remaining time");
    }

    @Test
    void anUnansweredAtMostOnceRequestIsDeadLetteredNeverRetried() {
        DeliveryDecision d = DeliveryDecision.of(DeliveryResult.unanswered("no response within 12 s"),
                facts(true, 1, Duration.ZERO));
        assertEquals(Action.DEAD_LETTER, d.action());
        assertTrue(d.reason().startsWith(DeliveryDecision.UNANSWERED), d.reason());
        assertEquals(Action.RETRY_INLINE, DeliveryDecision.of(DeliveryResult.unanswered("no response within 12 s"),
                facts(false, 1, Duration.ZERO)).action(), "at least once: tried again");
    }

    @Test
    void retriesRunOutIntoTheDeadLetterQueueButAThrottledAttemptNeverCounts() {
        DeliveryDecision d = DeliveryDecision.of(DeliveryResult.retry(null, "HTTP 500"), facts(false, 4,
                Duration.ZERO));
        assertEquals(Action.DEAD_LETTER, d.action());
        assertTrue(d.exhausted());
        assertEquals(Action.RETRY_INLINE, DeliveryDecision.of(DeliveryResult.throttled(Duration.ofSeconds(1),
                "rate limit"), facts(false, 4, Duration.ZERO)).action());
    }

    @Test
    void aWaitPastTheInlineBudgetParksAndAnAtMostOnceRefusalToo() {
        DeliveryDecision hour = DeliveryDecision.of(DeliveryResult.retry(Duration.ofHours(1), "HTTP 503"),
                facts(true, 1, Duration.ZERO));
        assertEquals(Action.PARK, hour.action(), "the receiver refused it: sending it later is not twice");
        assertEquals(Duration.ofHours(1), hour.delay());
        DeliveryDecision soon = decide(DeliveryResult.retry(null, "HTTP 502"));
        assertEquals(Action.RETRY_INLINE, soon.action());
        assertEquals(BACKOFF, soon.delay());
        assertEquals(Action.PARK, DeliveryDecision.of(DeliveryResult.retry(null, "HTTP 502"),
                facts(false, 2, Duration.ofSeconds(29))).action(), "29 s waited + 2 s backoff > 30 s budget");
    }

    @Test
    void failureReasonsAreABoundedLabel() {
        assertEquals(FailureReason.NONE, FailureReason.of(DeliveryResult.delivered()));
        assertEquals(FailureReason.AUTH_ERROR, FailureReason.of(DeliveryResult.permanent("HTTP 401: no")));
        assertEquals(FailureReason.AUTH_ERROR, FailureReason.of(DeliveryResult.permanent("HTTP 403")));
        assertEquals(FailureReason.RATE_LIMITED, FailureReason.of(DeliveryResult.retry(null, "HTTP 429")));
        assertEquals(FailureReason.RATE_LIMITED, FailureReason.of(DeliveryResult.throttled(Duration.ofSeconds(1),
                "rate limit of destination x")));
        assertEquals(FailureReason.CLIENT_ERROR, FailureReason.of(DeliveryResult.permanent("HTTP 404")));
        assertEquals(FailureReason.CLIENT_ERROR, FailureReason.of(DeliveryResult.permanent("config.endpoint: bad")));
        assertEquals(FailureReason.SERVER_ERROR, FailureReason.of(DeliveryResult.retry(null, "HTTP 503: busy")));
        assertEquals(FailureReason.TIMEOUT, FailureReason.of(DeliveryResult.unanswered("no response within 2 s")));
        assertEquals(FailureReason.TIMEOUT, FailureReason.of(DeliveryResult.retry(null, "connect timeout after 1 s")));
        assertEquals(FailureReason.NETWORK, FailureReason.of(DeliveryResult.retry(null, "connect failed: refused")));
        assertEquals(FailureReason.NETWORK, FailureReason.of(DeliveryResult.unanswered("I/O error: EOF")));
        assertEquals(FailureReason.NOT_SENT, FailureReason.of(DeliveryResult.shed(null, "circuit open")));
    }
}
