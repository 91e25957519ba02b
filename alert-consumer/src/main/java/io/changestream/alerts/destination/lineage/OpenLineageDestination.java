package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.destination.limits.CircuitBreakingDestination;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.Impacts;
import io.changestream.alerts.destination.Destination;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.webhook.WebhookConfig;
import io.changestream.alerts.impact.Impact;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.Producer;

/**
 * An OpenLineage destination. Takes run-status requests ({@link DeliveryRequest#ofRun}); states outside the
 * destination's {@link LineageSettings#statuses()} are settled without sending ({@link DeliveryResult#skipped}). Config:
 * {@code transport} {@code http} (default: {@code endpoint}, optional {@code batchEndpoint}, {@code headers},
 * {@code apiKey} sent as a bearer token) or {@code kafka} ({@code topic}); overrides of the service's
 * {@code lineage.*} settings ({@code namespace}, {@code statuses}, {@code gzipThresholdBytes},
 * {@code maxBatchEvents}). {@link #deliverAll} sends one batch; with a {@code batchEndpoint}, events that lane
 * threads deliver to the same destination within {@link LineageSettings#batchWindow()} share one request
 * ({@link LineageBatcher}). Thread-safe.
 */
public final class OpenLineageDestination implements Destination {

    private final LineageSettings settings;
    private final HttpSender sender;
    private final Producer<String, String> producer;
    private final LineageBatcher batcher = new LineageBatcher();
    private final ImpactResolver impact;

    /**
     * @param producer shared producer for the Kafka transport, or null when only HTTP is offered (owned by the
     *                 caller)
     */
    public OpenLineageDestination(LineageSettings settings, HttpSender sender, Producer<String, String> producer) {
        this(settings, sender, producer, null);
    }

    /**
     * @param producer shared producer for the Kafka transport, or null when only HTTP is offered (owned by the
     *                 caller)
     * @param impact   the platform's lineage for real datasets and the impact facet, or null (the service as
     *                 datasets, no facet)
     */
    public OpenLineageDestination(LineageSettings settings, HttpSender sender, Producer<String, String> producer,
                                  ImpactResolver impact) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.producer = producer;
        this.impact = impact;
    }

    @Override
    public SubscriptionType type() {
        return SubscriptionType.OPEN_LINEAGE;
    }

    @Override
    public DeliveryResult deliver(DeliveryRequest request) {
        return deliverAll(List.of(request)).get(0);
    }

    @Override
    public List<DeliveryResult> deliverAll(List<DeliveryRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        SubscriptionDestination destination = requests.get(0).destination();
        LineageSettings effective;
        LineageTransport transport;
        try {
            effective = settings.forDestination(destination.config());
            transport = transport(destination, effective);
        } catch (DestinationConfigException | IllegalArgumentException e) {
            DeliveryResult refused = DeliveryResult.permanent(e.getMessage());
            return requests.stream().map(r -> refused).toList();
        }
        DeliveryResult[] results = new DeliveryResult[requests.size()];
        List<LineageBatcher.Item> items = new ArrayList<>();
        List<Integer> sent = new ArrayList<>();
        Set<String> tiers;
        try {
            tiers = impactTiers(destination.config());
        } catch (DestinationConfigException e) {
            DeliveryResult refused = DeliveryResult.permanent(e.getMessage());
            return requests.stream().map(r -> refused).toList();
        }
        Map<Integer, CompletableFuture<Impact>> impacts = new HashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            DeliveryRequest request = requests.get(i);
            if (request.runStatus() == null) {
                results[i] = DeliveryResult.permanent("OpenLineage destinations take pipeline run statuses only");
            } else if (!effective.statuses().contains(request.runStatus().state())) {
                results[i] = DeliveryResult.skipped("run state " + request.runStatus().state()
                        + " is not among the destination's statuses");
            } else if (impact != null) {
                impacts.put(i, impact.ofAsync(request.runStatus().pipelineFqn())); // bounded by impact.timeout
            }
        }
        for (int i = 0; i < requests.size(); i++) {
            DeliveryRequest request = requests.get(i);
            if (results[i] != null) {
                continue;
            }
            Impact known = impacts.containsKey(i) ? impacts.get(i).join() : null;
            boolean failure = known != null && impact.settings().states().contains(request.runStatus().state());
            items.add(new LineageBatcher.Item(RunEvents.of(request.runStatus(), effective, known,
                    failure ? known : null, tiers, failure ? impact.settings().downstreamDepth() : 0),
                    request.idempotencyKey()));
            sent.add(i);
        }
        if (!items.isEmpty()) {
            DeliveryResult outcome;
            if (transport instanceof HttpLineageTransport http && http.batches()
                    && !effective.batchWindow().isZero()) {
                Duration maxWait = effective.batchWindow().plus(Duration.ofSeconds(
                        2L * (destination.timeout() + destination.readTimeout()) + 1));
                outcome = batcher.submit(CircuitBreakingDestination.key(requests.get(0)), items,
                        effective.maxBatchEvents(), effective.batchWindow(), maxWait, sendingTo(http));
            } else {
                outcome = send(transport, items);
            }
            for (int i : sent) {
                results[i] = outcome;
            }
        }
        return List.of(results);
    }

    /**
     * The tiers a destination limits the impact to: {@code config.impactTiers} (an array of tier tag FQNs), else
     * {@code impact.tiers}.
     *
     * @throws DestinationConfigException naming {@code config.impactTiers}
     */
    Set<String> impactTiers(JsonNode config) {
        Set<String> fallback = impact == null ? Set.of() : impact.settings().tiers();
        return Impacts.tiers(config, fallback);
    }

    private static java.util.function.Function<List<LineageBatcher.Item>, DeliveryResult> sendingTo(
            LineageTransport transport) {
        return items -> send(transport, items);
    }

    private static DeliveryResult send(LineageTransport transport, List<LineageBatcher.Item> items) {
        return transport.emit(items.stream().map(LineageBatcher.Item::event).toList(),
                items.stream().map(LineageBatcher.Item::idempotencyKey).toList());
    }

    /**
     * The transport a destination's config asks for, with the service's settings and the destination's
     * overrides (validators call it at save time).
     *
     * @throws DestinationConfigException naming the config field at fault
     */
    public LineageTransport transport(SubscriptionDestination destination) {
        return transport(destination, settings.forDestination(destination.config()));
    }

    private LineageTransport transport(SubscriptionDestination destination, LineageSettings effective) {
        JsonNode config = destination.config();
        String kind = config == null ? "http" : config.path("transport").asText("http");
        Duration connect = Duration.ofSeconds(destination.timeout());
        Duration read = Duration.ofSeconds(destination.readTimeout());
        if ("kafka".equals(kind)) {
            String topic = config.path("topic").asText("");
            if (topic.isBlank()) {
                throw new DestinationConfigException("config.topic", "is required for the kafka transport");
            }
            if (producer == null) {
                throw new DestinationConfigException("config.transport", "kafka transport is not enabled here");
            }
            return new KafkaLineageTransport(producer, settings.kafkaTopics(), topic, read);
        }
        if (!"http".equals(kind)) {
            throw new DestinationConfigException("config.transport", "must be http or kafka, was " + kind);
        }
        WebhookConfig http = WebhookConfig.parse(config);
        Map<String, String> headers = new HashMap<>(http.headers());
        String apiKey = config.path("apiKey").asText("");
        if (!apiKey.isEmpty()) {
            headers.put("Authorization", "Bearer " + apiKey);
        }
        String batch = config.path("batchEndpoint").asText("");
        URI batchEndpoint;
        try {
            batchEndpoint = batch.isBlank() ? null : new URI(batch);
        } catch (java.net.URISyntaxException e) {
            throw new DestinationConfigException("config.batchEndpoint", "is not a URL");
        }
        if (batchEndpoint != null) {
            sender.guard().check(batchEndpoint, "config.batchEndpoint");
        }
        return new HttpLineageTransport(sender, effective, http.endpoint(), batchEndpoint,
                Collections.unmodifiableMap(headers), connect, read);
    }
}
