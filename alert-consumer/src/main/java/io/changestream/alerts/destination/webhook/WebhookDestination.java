package io.changestream.alerts.destination.webhook;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.Destination;
import io.changestream.alerts.destination.IdentityMemo;
import io.changestream.alerts.destination.Impacts;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.impact.ImpactResolver;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The platform's generic webhook: POSTs (or PUTs) the ChangeEvent JSON with {@code subscriptionId} and
 * {@code subscriptionName} added, the config's custom headers, {@code Idempotency-Key: <subscriptionId>:<eventId>}
 * on every request, the event's W3C {@code traceparent} (its trace id, a new span id per request) and, when a {@code secretKey} is set, the signature headers of its {@code signatureScheme}:
 * {@code X-OM-Signature: sha256=<hex HMAC-SHA256 of the body>} (om, the default), the Standard Webhooks headers
 * (standard: {@link StandardWebhookSigner}, signed at the attempt's time from the injected clock, the same
 * {@code webhook-id} on every attempt) or both. Thread-safe.
 */
public final class WebhookDestination implements Destination {

    /** The signature header, as the platform sends it. */
    public static final String SIGNATURE_HEADER = "X-OM-Signature";
    /** The idempotency header. */
    public static final String IDEMPOTENCY_HEADER = "Idempotency-Key";

    /** Bytes of event JSON kept for the events' other pairs (the events in flight: 4 MiB). */
    private static final long EVENT_JSON_BYTES_KEPT = 4L << 20;
    /** Slots of the table that keeps them: events by identity hash, a newer event takes an older one's slot. */
    private static final int EVENT_JSON_SLOTS = 8192;
    /** The largest event JSON kept; a bigger event is written per pair. */
    private static final int EVENT_JSON_MAX_KEPT = 64 << 10;
    /** The added fields' names, as written after the event's own fields. */
    private static final byte[] SUBSCRIPTION_ID_FIELD = "\"subscriptionId\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SUBSCRIPTION_NAME_FIELD = ",\"subscriptionName\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.UTF_8);

    private final HttpSender sender;
    private final Clock clock;
    private final ImpactResolver impact;
    private final ObjectMapper mapper = Json.mapper();
    /** Events' JSON by identity, so the pairs of one event share it. */
    private final IdentityMemo<Object, byte[]> serialized = new IdentityMemo<>(EVENT_JSON_SLOTS, json -> json.length,
            EVENT_JSON_BYTES_KEPT, EVENT_JSON_MAX_KEPT);

    /** With the system clock. */
    public WebhookDestination(HttpSender sender) {
        this(sender, Clock.systemUTC());
    }

    /** With the clock that stamps {@code webhook-timestamp}. */
    public WebhookDestination(HttpSender sender, Clock clock) {
        this(sender, clock, null);
    }

    /**
     * With the failure impact for destinations of category DownstreamOwners: their run-status body carries it as
     * {@code impact} (null: none).
     */
    public WebhookDestination(HttpSender sender, Clock clock, ImpactResolver impact) {
        this.sender = Objects.requireNonNull(sender, "sender");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.impact = impact;
    }

    @Override
    public SubscriptionType type() {
        return SubscriptionType.WEBHOOK;
    }

    @Override
    public DeliveryResult deliver(DeliveryRequest request) {
        return HttpSender.await(deliverAsync(request, Runnable::run));
    }

    /** Sends over the asynchronous HTTP client; {@code blocking} is not used. */
    @Override
    public CompletionStage<DeliveryResult> deliverAsync(DeliveryRequest request, Executor blocking) {
        if (Impacts.wanted(request, impact)) {
            return Impacts.sendWith(request, impact, known -> {
                com.fasterxml.jackson.databind.node.ObjectNode run = mapper.valueToTree(request.runStatus());
                run.set("impact", mapper.valueToTree(known.describe(Impacts.tiers(
                        request.destination().config(), impact.settings().tiers()),
                        impact.settings().downstreamDepth())));
                return send(request, () -> body(request, run));
            });
        }
        return send(request, () -> body(request, request.event() != null ? request.event() : request.runStatus()));
    }

    private CompletionStage<DeliveryResult> send(DeliveryRequest request, WebhookPost.Body body) {
        WebhookPost post = WebhookPost.prepare(request.destination(), body, "cannot serialize the event: ");
        if (post.refused() != null) {
            return CompletableFuture.completedFuture(post.refused());
        }
        Map<String, String> headers = post.signed(post.headers(WebhookPost.JSON, request.idempotencyKey(),
                request.outboundTraceparent()), request.idempotencyKey(), clock.instant().getEpochSecond());
        return sender.sendAsync(post.outbound(request.destination(), headers));
    }

    /**
     * The event's JSON with {@code subscriptionId} and {@code subscriptionName} added as its last fields. The event's
     * own JSON is made once and shared by the requests of its pairs (the same event object, by identity), so ten
     * subscriptions of one event serialize it once.
     */
    byte[] body(DeliveryRequest request) throws JsonProcessingException {
        return body(request, request.event() != null ? request.event() : request.runStatus());
    }

    private byte[] body(DeliveryRequest request, Object event) throws JsonProcessingException {
        byte[] json = eventJson(event);
        byte[] id = jsonString(request.subscription().id());
        byte[] name = jsonString(request.subscription().name());
        byte[] body = new byte[json.length + (json.length > 2 ? 1 : 0) + SUBSCRIPTION_ID_FIELD.length + id.length
                + SUBSCRIPTION_NAME_FIELD.length + name.length];
        int at = json.length - 1;
        System.arraycopy(json, 0, body, 0, at);
        if (json.length > 2) {
            body[at++] = ',';
        }
        at = append(body, at, SUBSCRIPTION_ID_FIELD);
        at = append(body, at, id);
        at = append(body, at, SUBSCRIPTION_NAME_FIELD);
        at = append(body, at, name);
        body[at] = '}';
        return body;
    }

    /** The event's own JSON object, written once while its other pairs may still need it. */
    private byte[] eventJson(Object event) throws JsonProcessingException {
        byte[] json = serialized.get(event);
        if (json == null) {
            json = mapper.writeValueAsBytes(event);
            if (json.length < 2 || json[0] != '{' || json[json.length - 1] != '}') {
                throw new IllegalArgumentException("the event is not a JSON object");
            }
            serialized.put(event, json);
        }
        return json;
    }

    /** A JSON string literal (quoted, escaped as Jackson writes it), or {@code null}: what the mapper writes. */
    private static byte[] jsonString(String value) {
        if (value == null) {
            return NULL;
        }
        byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(value);
        byte[] quoted = new byte[escaped.length + 2];
        quoted[0] = '"';
        System.arraycopy(escaped, 0, quoted, 1, escaped.length);
        quoted[quoted.length - 1] = '"';
        return quoted;
    }

    private static int append(byte[] into, int at, byte[] bytes) {
        System.arraycopy(bytes, 0, into, at, bytes.length);
        return at + bytes.length;
    }

    /** Lower-case hex HMAC-SHA256 of the body with the UTF-8 key. */
    public static String hmacSha256Hex(String key, byte[] body) {
        return HexFormat.of().formatHex(HmacSha256.of(key.getBytes(StandardCharsets.UTF_8), null, body));
    }

}
