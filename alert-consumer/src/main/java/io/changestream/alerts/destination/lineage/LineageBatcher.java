package io.changestream.alerts.destination.lineage;

import io.changestream.alerts.destination.DeliveryResult;
import io.openlineage.client.OpenLineage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Gathers the run events that lane threads deliver to one destination within a short window into one request (a
 * group commit): the first caller for a destination opens a batch and waits up to the window (less when the batch
 * fills to {@code maxBatchEvents}), then sends it; callers meanwhile add their events and wait for that one result.
 * One open batch per destination, at most {@code maxBatchEvents} in it, so memory is bounded by the lanes. The
 * window is a real wait (like a socket timeout), measured with {@link System#nanoTime()}. Thread-safe.
 */
final class LineageBatcher {

    /** One event and its idempotency key. */
    record Item(OpenLineage.RunEvent event, String idempotencyKey) {
    }

    private static final class Batch {
        final List<Item> items = new ArrayList<>();
        final CompletableFuture<DeliveryResult> result = new CompletableFuture<>();
        boolean closed;
    }

    private final Map<String, Batch> open = new HashMap<>();

    /** Open batches (for tests and the status view). */
    synchronized int openBatches() {
        return open.size();
    }

    /**
     * Adds the items to the destination's open batch (or opens one) and returns the result of the request that
     * carried them.
     *
     * @param maxWait how long a caller that did not open the batch waits for its result before reporting RETRY
     */
    DeliveryResult submit(String destinationKey, List<Item> items, int maxEvents, Duration window, Duration maxWait,
                          Function<List<Item>, DeliveryResult> send) {
        Batch batch;
        boolean leader;
        synchronized (this) {
            batch = open.get(destinationKey);
            leader = batch == null || batch.closed || batch.items.size() + items.size() > maxEvents;
            if (leader) {
                batch = new Batch();
                open.put(destinationKey, batch);
            }
            batch.items.addAll(items);
            if (batch.items.size() >= maxEvents) {
                close(destinationKey, batch);
            }
        }
        if (!leader) {
            return await(batch, maxWait);
        }
        long deadline = System.nanoTime() + window.toNanos();
        synchronized (this) {
            try {
                for (long left = deadline - System.nanoTime(); !batch.closed && left > 0;
                     left = deadline - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            close(destinationKey, batch);
        }
        DeliveryResult result;
        try {
            result = send.apply(List.copyOf(batch.items));
        } catch (RuntimeException e) {
            result = DeliveryResult.permanent("cannot send the lineage batch: " + e.getMessage());
        }
        batch.result.complete(result);
        return result;
    }

    private void close(String destinationKey, Batch batch) {
        batch.closed = true;
        open.remove(destinationKey, batch);
        notifyAll();
    }

    private static DeliveryResult await(Batch batch, Duration maxWait) {
        try {
            return batch.result.get(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DeliveryResult.retry(null, "interrupted while waiting for the lineage batch");
        } catch (TimeoutException e) {
            return DeliveryResult.retry(null, "the lineage batch was not sent within " + maxWait.toMillis() + " ms");
        } catch (ExecutionException e) {
            return DeliveryResult.retry(null, "the lineage batch failed: " + e.getCause());
        }
    }
}
