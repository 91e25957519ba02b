package io.changestream.alerts.destination.lineage;

import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.http.HttpSender;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClientUtils;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

/**
 * OpenLineage over HTTP: one event is POSTed to {@code endpoint} (e.g. {@code http://marquez:5000/api/v1/lineage});
 * several, when a {@code batchEndpoint} is configured, as one JSON array to it, at most
 * {@link LineageSettings#maxBatchEvents()} per request. Bodies above {@link LineageSettings#gzipThresholdBytes()}
 * are sent with {@code Content-Encoding: gzip}. Every request carries an {@code Idempotency-Key}: the event's own
 * key ({@code <subscriptionId>:<fqn>/<runId>/<state>}) for a single event, {@code batch:<name-based UUID of its
 * members' keys>} for a batch (the same members give the same key). Thread-safe.
 */
public final class HttpLineageTransport implements LineageTransport {

    private final HttpSender sender;
    private final LineageSettings settings;
    private final URI endpoint;
    private final URI batchEndpoint;
    private final Map<String, String> headers;
    private final Duration connectTimeout;
    private final Duration readTimeout;

    public HttpLineageTransport(HttpSender sender, LineageSettings settings, URI endpoint, URI batchEndpoint,
                                Map<String, String> headers, Duration connectTimeout, Duration readTimeout) {
        this.sender = sender;
        this.settings = settings;
        this.endpoint = endpoint;
        this.batchEndpoint = batchEndpoint;
        this.headers = Map.copyOf(headers);
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
    }

    /** Whether several events go as one request. */
    public boolean batches() {
        return batchEndpoint != null;
    }

    @Override
    public DeliveryResult emit(List<OpenLineage.RunEvent> events) {
        List<String> keys = events.stream().map(e -> e.getRun().getRunId() + "/" + e.getEventType()).toList();
        return emit(events, keys);
    }

    @Override
    public DeliveryResult emit(List<OpenLineage.RunEvent> events, List<String> idempotencyKeys) {
        if (idempotencyKeys.size() != events.size()) {
            throw new IllegalArgumentException("one idempotency key per event");
        }
        if (batchEndpoint == null || events.size() == 1) {
            for (int i = 0; i < events.size(); i++) {
                DeliveryResult result = post(endpoint, OpenLineageClientUtils.toJson(events.get(i)),
                        idempotencyKeys.get(i));
                if (!result.isDelivered()) {
                    return result;
                }
            }
            return DeliveryResult.delivered();
        }
        for (int from = 0; from < events.size(); from += settings.maxBatchEvents()) {
            int to = Math.min(events.size(), from + settings.maxBatchEvents());
            DeliveryResult result = post(batchEndpoint, OpenLineageClientUtils.toJson(events.subList(from, to)),
                    batchKey(idempotencyKeys.subList(from, to)));
            if (!result.isDelivered()) {
                return result;
            }
        }
        return DeliveryResult.delivered();
    }

    /** The key of a batch: a name-based UUID of its members' keys in order. */
    static String batchKey(List<String> keys) {
        return "batch:" + UUID.nameUUIDFromBytes(String.join("\n", keys).getBytes(StandardCharsets.UTF_8));
    }

    private DeliveryResult post(URI uri, String json, String idempotencyKey) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.put("Content-Type", "application/json");
        all.put("Idempotency-Key", idempotencyKey);
        if (body.length > settings.gzipThresholdBytes()) {
            body = gzip(body);
            all.put("Content-Encoding", "gzip");
        }
        return sender.send(new HttpSender.Outbound(uri, "POST", all, body, connectTimeout, readTimeout,
                "config.endpoint"));
    }

    private static byte[] gzip(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
