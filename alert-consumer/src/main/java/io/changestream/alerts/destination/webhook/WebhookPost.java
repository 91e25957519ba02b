package io.changestream.alerts.destination.webhook;

import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.http.HttpSender;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.trace.TraceContext;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One POST (or PUT) of a webhook-shaped destination (the generic webhook and the chat webhooks, for an event or a
 * digest): the destination's {@link WebhookConfig} and a JSON body, or why there are none (PERMANENT); then the
 * config's headers with {@code Content-Type}, {@code Idempotency-Key} and {@code traceparent}, the signature headers
 * of its {@code signatureScheme}, and the request to its endpoint with its timeouts. Stateless; any thread.
 *
 * @param config the parsed config, null when refused
 * @param body the body, null when refused
 * @param refused the PERMANENT answer when the config or the body could not be made, else null
 */
public record WebhookPost(WebhookConfig config, byte[] body, DeliveryResult refused) {

    /** The generic webhook's content type. */
    static final String JSON = "application/json";
    /** The chat webhooks' (and digests') content type. */
    public static final String JSON_UTF8 = "application/json; charset=utf-8";

    /** Writes a body; a failure refuses the post. */
    @FunctionalInterface
    public interface Body {
        byte[] write() throws JsonProcessingException;
    }

    /**
     * Parses {@code destination}'s config, then writes the body; a bad config refuses with its message, a body that
     * cannot be written with {@code cannot} followed by the reason.
     */
    public static WebhookPost prepare(SubscriptionDestination destination, Body body, String cannot) {
        WebhookConfig config;
        try {
            config = WebhookConfig.parse(destination.config());
        } catch (DestinationConfigException e) {
            return new WebhookPost(null, null, DeliveryResult.permanent(e.getMessage()));
        }
        try {
            return new WebhookPost(config, body.write(), null);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return new WebhookPost(null, null, DeliveryResult.permanent(cannot + e.getMessage()));
        }
    }

    /** The config's headers, then {@code Content-Type}, {@code Idempotency-Key} and {@code traceparent}; mutable. */
    public Map<String, String> headers(String contentType, String idempotencyKey, String traceparent) {
        Map<String, String> headers = new LinkedHashMap<>(config.headers());
        headers.put("Content-Type", contentType);
        headers.put(WebhookDestination.IDEMPOTENCY_HEADER, idempotencyKey);
        headers.put(TraceContext.HEADER, traceparent);
        return headers;
    }

    /**
     * Adds the signature headers of the config's scheme: {@code X-OM-Signature} when a secret is set (om), the
     * Standard Webhooks headers signed at {@code epochSecond} with a message id from {@code idempotencyKey}
     * (standard), or both.
     */
    public Map<String, String> signed(Map<String, String> headers, String idempotencyKey, long epochSecond) {
        if (config.secretKey() != null && config.signatureScheme().signsOm()) {
            headers.put(WebhookDestination.SIGNATURE_HEADER, "sha256="
                    + WebhookDestination.hmacSha256Hex(config.secretKey(), body));
        }
        if (config.signatureScheme().signsStandard()) {
            headers.putAll(StandardWebhookSigner.headers(config.standardKey(),
                    StandardWebhookSigner.messageId(idempotencyKey), epochSecond, body));
        }
        return headers;
    }

    /** The request: the config's endpoint and method, connect = the destination's timeout, read = readTimeout. */
    public HttpSender.Outbound outbound(SubscriptionDestination destination, Map<String, String> headers) {
        return new HttpSender.Outbound(config.endpoint(), config.httpMethod(), headers, body,
                Duration.ofSeconds(destination.timeout()), Duration.ofSeconds(destination.readTimeout()),
                "config.endpoint");
    }
}
