package io.changestream.alerts.destination.chat;

import io.changestream.alerts.destination.ChangeMessage;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.Destination;
import io.changestream.alerts.destination.Impacts;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.webhook.WebhookPost;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
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
    private final ImpactResolver impact;

    public ChatDestination(ChatFormat format, HttpSender sender, MessageSettings messages) {
        this(format, sender, messages, null);
    }

    /** With the failure impact for destinations of category DownstreamOwners (null: none). */
    public ChatDestination(ChatFormat format, HttpSender sender, MessageSettings messages, ImpactResolver impact) {
        this.format = Objects.requireNonNull(format, "format");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.messages = Objects.requireNonNull(messages, "messages");
        this.impact = impact;
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
        if (Impacts.wanted(request, impact)) {
            return Impacts.sendWith(request, impact, known -> send(request, ChangeMessage.of(
                    request.runStatus(), messages, known, impact.settings().topAssets())));
        }
        return send(request, request.event() != null ? ChangeMessage.of(request.event(), messages)
                : ChangeMessage.of(request.runStatus(), messages));
    }

    private CompletionStage<DeliveryResult> send(DeliveryRequest request, ChangeMessage message) {
        WebhookPost post = WebhookPost.prepare(request.destination(),
                () -> Json.mapper().writeValueAsBytes(format.render(message)), "cannot render the message: ");
        if (post.refused() != null) {
            return CompletableFuture.completedFuture(post.refused());
        }
        return sender.sendAsync(post.outbound(request.destination(), post.headers(WebhookPost.JSON_UTF8,
                request.idempotencyKey(), request.outboundTraceparent())));
    }
}
