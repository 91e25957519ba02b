package io.changestream.alerts.destination;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A chat incoming webhook (Slack, MS Teams or Google Chat): renders the event with its {@link ChatFormat} and POSTs
 * it to {@code config.endpoint} with the config's headers, the {@code Idempotency-Key} and the event's {@code traceparent}. Thread-safe.
 */
public final class ChatDestination implements Destination {

    private final ChatFormat format;
    private final HttpSender sender;
    private final MessageSettings messages;

    public ChatDestination(ChatFormat format, HttpSender sender, MessageSettings messages) {
        this.format = Objects.requireNonNull(format, "format");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.messages = Objects.requireNonNull(messages, "messages");
    }

    @Override
    public SubscriptionType type() {
        return format.type();
    }

    @Override
    public DeliveryResult deliver(DeliveryRequest request) {
        return HttpSender.await(deliverAsync(request, Runnable::run));
    }

    /** Sends over the asynchronous HTTP client; {@code blocking} is not used. */
    @Override
    public CompletionStage<DeliveryResult> deliverAsync(DeliveryRequest request, Executor blocking) {
        WebhookConfig config;
        try {
            config = WebhookConfig.parse(request.destination().config());
        } catch (DestinationConfigException e) {
            return CompletableFuture.completedFuture(DeliveryResult.permanent(e.getMessage()));
        }
        ChangeMessage message = request.event() != null ? ChangeMessage.of(request.event(), messages)
                : ChangeMessage.of(request.runStatus(), messages);
        byte[] body;
        try {
            body = Json.mapper().writeValueAsBytes(format.render(message));
        } catch (JsonProcessingException e) {
            return CompletableFuture.completedFuture(
                    DeliveryResult.permanent("cannot render the message: " + e.getMessage()));
        }
        Map<String, String> headers = new LinkedHashMap<>(config.headers());
        headers.put("Content-Type", "application/json; charset=utf-8");
        headers.put(WebhookDestination.IDEMPOTENCY_HEADER, request.idempotencyKey());
        headers.put(io.changestream.topics.trace.TraceContext.HEADER, request.outboundTraceparent());
        return sender.sendAsync(WebhookDestination.outbound(request.destination(), config, headers, body));
    }
}
