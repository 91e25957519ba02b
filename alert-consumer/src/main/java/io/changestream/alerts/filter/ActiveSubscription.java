package io.changestream.alerts.filter;

import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import java.util.Objects;

/**
 * A subscription as the view holds it: the stored record plus its compiled filter. A record whose rules do not
 * compile (written by another tool) is kept with the compile error; {@link #matches} then throws the typed
 * evaluation error, so its events are dead-lettered (source PUBLISHER) instead of silently skipped. Immutable.
 *
 * @param subscription the stored subscription
 * @param filter       its compiled filter, or null when it does not compile
 * @param compileError why it does not compile, or null
 * @param offset       offset of the record in the topic (the view's name order: the lower offset owns a name)
 */
public record ActiveSubscription(EventSubscription subscription, SubscriptionFilter filter, String compileError,
                                 long offset) {

    public ActiveSubscription {
        Objects.requireNonNull(subscription, "subscription");
        if ((filter == null) == (compileError == null)) {
            throw new IllegalArgumentException("exactly one of filter and compileError must be set");
        }
    }

    /** The subscription id. */
    public String id() {
        return subscription.id();
    }

    /**
     * Whether the subscription wants the event.
     *
     * @throws FilterEvaluationException when its rules do not compile or cannot be evaluated on the event
     */
    public boolean matches(ChangeEvent event) {
        if (filter == null) {
            throw new FilterEvaluationException("subscription " + subscription.name() + " has rules that do not "
                    + "compile: " + compileError);
        }
        return filter.matches(event);
    }
}
