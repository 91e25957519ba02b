package io.changestream.alerts.destination.lineage;

import io.changestream.alerts.destination.DeliveryResult;
import io.openlineage.client.OpenLineage;
import java.util.List;

/** Sends RunEvents somewhere; thread-safe. One result for the whole list (sent together or not at all). */
public interface LineageTransport {

    /** Sends the events. */
    DeliveryResult emit(List<OpenLineage.RunEvent> events);

    /**
     * Sends the events with each one's idempotency key ({@code <subscriptionId>:<fqn>/<runId>/<state>}, same
     * order); transports that can carry them (HTTP: {@code Idempotency-Key}) do. The default ignores the keys.
     */
    default DeliveryResult emit(List<OpenLineage.RunEvent> events, List<String> idempotencyKeys) {
        return emit(events);
    }
}
