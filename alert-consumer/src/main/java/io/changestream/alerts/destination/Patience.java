package io.changestream.alerts.destination;

/**
 * What a request does when its destination cannot take it now (decision 2103): stalled (every slot busy, nothing
 * answered for {@code delivery.stallTimeout}), its queue full, or its turn later than
 * {@code delivery.maxQueueWait} (the bulkhead of {@code destination.limits}).
 */
public enum Patience {
    /**
     * The commit path's: a request its destination cannot take completes at once as {@link DeliveryResult#shed shed},
     * never sent, and its pair leaves for the retry path, so a pair never holds its event and the keys behind it in
     * the runtime for a destination in trouble. A request already on the wire waits for its answer (at most its
     * deadline).
     */
    SHED,
    /**
     * The request waits its turn in the destination's queue however long the destination takes to answer; a full
     * queue is a throttled result (tried again later). The retry path's: its pairs already left the commit path. Such
     * a pair's wait is bounded by the requests ahead of it (each at most its deadline).
     */
    WAIT
}
