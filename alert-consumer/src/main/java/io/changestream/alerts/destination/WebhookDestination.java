package io.changestream.alerts.destination;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

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

    private final HttpSender sender;
    private final Clock clock;
    private final ObjectMapper mapper = Json.mapper();

    /** With the system clock. */
    public WebhookDestination(HttpSender sender) {
        this(sender, Clock.systemUTC());
    }

    /** With the clock that stamps {@code webhook-timestamp}. */
    public WebhookDestination(HttpSender sender, Clock clock) {
        this.sender = Objects.requireNonNull(sender, "sender");
        this.clock = Objects.requireNonNull(clock, "clock");
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
        WebhookPost post = WebhookPost.prepare(request.destination(), () -> {
            ObjectNode json = request.event() != null ? mapper.valueToTree(request.event())
                    : mapper.valueToTree(request.runStatus());
            json.put("subscriptionId", request.subscription().id());
            json.put("subscriptionName", request.subscription().name());
            return mapper.writeValueAsBytes(json);
        }, "cannot serialize the event: ");
        if (post.refused() != null) {
            return CompletableFuture.completedFuture(post.refused());
        }
        Map<String, String> headers = post.signed(post.headers(WebhookPost.JSON, request.idempotencyKey(),
                request.outboundTraceparent()), request.idempotencyKey(), clock.instant().getEpochSecond());
        return sender.sendAsync(post.outbound(request.destination(), headers));
    }

    /** Lower-case hex HMAC-SHA256 of the body with the UTF-8 key. */
    public static String hmacSha256Hex(String key, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
