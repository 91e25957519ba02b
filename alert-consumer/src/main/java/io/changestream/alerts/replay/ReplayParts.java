package io.changestream.alerts.replay;

import io.changestream.alerts.delivery.DeadLetterWriter;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.filter.ActiveSubscription;
import io.changestream.alerts.ledger.LedgerSettings;
import io.changestream.alerts.pipeline.PipelineSettings;
import io.changestream.runtime.RuntimeConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;

/**
 * What a replay shares with the live service: its Kafka client properties, its runtime and ledger settings (each
 * replay takes them for its own group), the destinations (so a replay keeps to each destination's concurrency limit
 * and circuit breaker), the subscription view, the dead-letter writer and the ledger's producer.
 *
 * @param kafka          client properties of every client (admin calls take the ones that apply)
 * @param runtime        the live runtime's settings, taken {@link RuntimeConfig#forGroup for the replay's group}
 * @param ledger         the live ledger's settings, taken {@link LedgerSettings#forGroup for the replay's group}
 * @param pipeline       the alert processor's settings
 * @param destinations   the service's destinations
 * @param subscriptions  the subscription view (a replay delivers to the ones it names that are still there)
 * @param deadLetters    the service's dead-letter writer
 * @param ledgerProducer the ledger's producer
 * @param adminTimeout   bound of each admin call (planning a replay, reading its progress)
 * @param clock          the service's clock
 */
public record ReplayParts(Map<String, Object> kafka, RuntimeConfig runtime, LedgerSettings ledger,
                          PipelineSettings pipeline, DestinationRegistry destinations,
                          Supplier<List<ActiveSubscription>> subscriptions, DeadLetterWriter deadLetters,
                          Producer<String, byte[]> ledgerProducer, Duration adminTimeout, Clock clock) {
}
