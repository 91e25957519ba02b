package io.changestream.alerts.delivery;

import io.changestream.alerts.destination.DeliveryResult;
import java.time.Duration;
import java.util.Objects;

/**
 * What happens to a pair's destination group after one delivery attempt — the one decision table of the delivery
 * core (decision 2102), asked by the alert processor for every result. Pure: the result and the pair's facts in, an
 * action out.
 *
 * <table>
 *   <caption>result → action</caption>
 *   <tr><th>result</th><th>action</th></tr>
 *   <tr><td>delivered (2xx, SMTP 250, Kafka ack)</td><td>{@link Action#DONE}</td></tr>
 *   <tr><td>410 Gone, a retry path exists</td><td>{@link Action#SUSPEND} (the destination, group-wide; the pair is
 *       parked)</td></tr>
 *   <tr><td>other permanent (3xx, 4xx but 408/429, bad config, refused address)</td><td>{@link Action#DEAD_LETTER}
 *       </td></tr>
 *   <tr><td>shed (bulkhead full or stalled, circuit open) — never sent</td><td>{@link Action#PARK} now (inline
 *       after the backoff without a retry path)</td></tr>
 *   <tr><td>unanswered (timeout, connection lost, cancelled) of an at-most-once group</td>
 *       <td>{@link Action#DEAD_LETTER} (it may have arrived)</td></tr>
 *   <tr><td>sent and failed with the subscription's {@code retries} used up</td><td>{@link Action#DEAD_LETTER}
 *       (exhausted)</td></tr>
 *   <tr><td>retry (408, 429, 5xx, timeout, network, rate limit) whose wait ends past the inline budget, a retry path
 *       exists</td><td>{@link Action#PARK} after the wait</td></tr>
 *   <tr><td>any other retry</td><td>{@link Action#RETRY_INLINE} after the wait ({@code Retry-After}, else the
 *       backoff)</td></tr>
 * </table>
 *
 * @param action    what to do
 * @param delay     how long until the next attempt (PARK, RETRY_INLINE), else zero
 * @param reason    the failure reason for the DLQ, the status view and logs (null when done)
 * @param exhausted for DEAD_LETTER: the subscription's retries ran out (retriesLeft 0)
 */
public record DeliveryDecision(Action action, Duration delay, String reason, boolean exhausted) {

    /** The DLQ reason of an at-most-once pair attempted by a process that stopped before settling it. */
    public static final String UNKNOWN_OUTCOME = "outcome unknown after crash: attempted before, never settled; "
            + "not sent again (at-most-once destination)";
    /** The DLQ reason prefix of an at-most-once request that got no answer (it may have arrived). */
    public static final String UNANSWERED = "outcome unknown: sent, no answer; not sent again (at-most-once "
            + "destination): ";

    /** What happens next to a pair's destination group. */
    public enum Action {
        /** The receiver has it: the group is done. */
        DONE,
        /** Try again on the commit path after {@link DeliveryDecision#delay()}. */
        RETRY_INLINE,
        /** Leave the commit path: hand the group to the retry path, due after {@link DeliveryDecision#delay()}. */
        PARK,
        /** The receiver said 410: suspend the destination and park the group. */
        SUSPEND,
        /** Give up: the group goes to the DLQ. */
        DEAD_LETTER
    }

    public DeliveryDecision {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(delay, "delay");
    }

    /**
     * The pair's facts the decision needs.
     *
     * @param atMostOnce   the group is sent at most once
     * @param attempts     attempts made so far, this one included (sent ones only)
     * @param retries      the subscription's {@code retries}
     * @param waitedInline time since the pair's first failure on the commit path
     * @param inlineBudget longest a pair waits on the commit path ({@code retry.inlineBudget})
     * @param retryPath    a retry path exists (it parks, and 410 suspends)
     * @param backoff      the runtime's backoff for the next attempt
     */
    public record Facts(boolean atMostOnce, int attempts, int retries, Duration waitedInline, Duration inlineBudget,
                        boolean retryPath, Duration backoff) {
        public Facts {
            Objects.requireNonNull(waitedInline, "waitedInline");
            Objects.requireNonNull(inlineBudget, "inlineBudget");
            Objects.requireNonNull(backoff, "backoff");
        }
    }

    /** Whether a result suspends its destination: the receiver answered {@code 410 Gone}. */
    public static boolean suspends(DeliveryResult result) {
        return result.outcome() == DeliveryResult.Kind.PERMANENT && result.reason() != null
                && result.reason().startsWith("HTTP 410");
    }

    /** The decision for one result. */
    public static DeliveryDecision of(DeliveryResult result, Facts facts) {
        switch (result.outcome()) {
            case DELIVERED -> {
                return new DeliveryDecision(Action.DONE, Duration.ZERO, null, false);
            }
            case PERMANENT -> {
                return new DeliveryDecision(suspends(result) && facts.retryPath() ? Action.SUSPEND
                        : Action.DEAD_LETTER, Duration.ZERO, result.reason(), false);
            }
            default -> {
                if (result.shed()) {
                    Duration wait = result.retryAfter() != null ? result.retryAfter() : Duration.ZERO;
                    return facts.retryPath() ? new DeliveryDecision(Action.PARK, wait, result.reason(), false)
                            : new DeliveryDecision(Action.RETRY_INLINE, wait.isZero() ? facts.backoff() : wait,
                            result.reason(), false);
                }
                if (result.unanswered() && facts.atMostOnce()) {
                    return new DeliveryDecision(Action.DEAD_LETTER, Duration.ZERO, UNANSWERED + result.reason(),
                            false);
                }
                if (!result.throttled() && facts.attempts() > facts.retries()) {
                    return new DeliveryDecision(Action.DEAD_LETTER, Duration.ZERO, "retries exhausted ("
                            + facts.retries() + "): " + result.reason(), true);
                }
                Duration wait = result.retryAfter() != null ? result.retryAfter() : facts.backoff();
                boolean overBudget = facts.waitedInline().plus(wait).compareTo(facts.inlineBudget()) > 0;
                return new DeliveryDecision(overBudget && facts.retryPath() ? Action.PARK : Action.RETRY_INLINE,
                        wait, result.reason(), false);
            }
        }
    }
}
