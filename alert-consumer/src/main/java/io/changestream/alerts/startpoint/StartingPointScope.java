package io.changestream.alerts.startpoint;

import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.runtime.Event;
import io.changestream.topics.model.EventSubscription;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Keeps each event away from the subscriptions whose {@link StartingPoint} is after it. The processor asks for "the
 * subscriptions" while it handles one event on a lane thread; {@link #during} marks that event on the thread, and
 * the supplier from {@link #subscriptions} then answers only the subscriptions that admit it (outside such a call:
 * all of them). Parsed starting points are cached per stored subscription version. Any thread.
 */
public final class StartingPointScope {

    private final ThreadLocal<Event<?, ?>> current = new ThreadLocal<>();
    private final Map<String, Cached> points = new ConcurrentHashMap<>();

    private record Cached(EventSubscription version, StartingPoint point) {
    }

    /** The subscriptions of {@code all} that admit the event being handled on this thread. */
    public Supplier<List<ActiveSubscription>> subscriptions(Supplier<List<ActiveSubscription>> all) {
        return () -> {
            List<ActiveSubscription> list = all.get();
            Event<?, ?> event = current.get();
            if (event == null) {
                return list;
            }
            boolean allAdmit = true;
            for (ActiveSubscription a : list) {
                if (!admits(a.subscription(), event)) {
                    allAdmit = false;
                    break;
                }
            }
            return allAdmit ? list : list.stream().filter(a -> admits(a.subscription(), event)).toList();
        };
    }

    /** Whether {@code subscription} is to receive {@code event} (it is at or after its starting point). */
    public boolean admits(EventSubscription subscription, Event<?, ?> event) {
        StartingPoint point = point(subscription);
        return point == null || point.admits(event.topic(), event.partition(), event.offset());
    }

    /** The starting point of a subscription (cached), or null when it has none. */
    public StartingPoint point(EventSubscription subscription) {
        Cached cached = points.get(subscription.id());
        if (cached == null || cached.version() != subscription) {
            cached = new Cached(subscription, StartingPoint.of(subscription));
            points.put(subscription.id(), cached);
        }
        return cached.point();
    }

    /** Runs {@code work} with {@code event} marked as the one this thread handles. */
    public <T> T during(Event<?, ?> event, Supplier<T> work) {
        Event<?, ?> outer = current.get();
        current.set(event);
        try {
            return work.get();
        } finally {
            if (outer == null) {
                current.remove();
            } else {
                current.set(outer);
            }
        }
    }

    /** Forgets a deleted subscription's cached point. */
    public void forget(String subscriptionId) {
        points.remove(subscriptionId);
    }
}
