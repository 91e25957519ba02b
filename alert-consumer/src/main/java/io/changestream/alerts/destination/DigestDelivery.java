package io.changestream.alerts.destination;

import io.changestream.alerts.platform.PlatformUnavailableException;
import io.changestream.alerts.destination.chat.ChatFormat;
import io.changestream.alerts.destination.email.EmailDestination;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.limits.CircuitBreakingDestination;
import io.changestream.alerts.destination.limits.DestinationRateLimiter;
import io.changestream.alerts.destination.webhook.WebhookPost;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import io.changestream.topics.trace.TraceContext;
import jakarta.mail.internet.InternetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * Sends a {@link DigestMessage} in each destination's format: a Webhook (or Generic) gets a JSON array of the listed
 * events (each as the single-event body, with {@code subscriptionId}/{@code subscriptionName}) and the headers
 * {@value #TOTAL_HEADER} / {@value #OMITTED_HEADER}; Slack, MS Teams and Google Chat get one message in their
 * {@link ChatFormat} with the counts and the listed changes; e-mail gets one HTML (and plain) summary to the
 * destination's receivers (roles resolved over the listed events). Every request carries
 * {@code Idempotency-Key: <subscriptionId>:<flushId>} and the signature of its scheme. The destination's rate limit
 * applies; OpenLineage is not a digest target. Thread-safe.
 */
public final class DigestDelivery {

    /** Header with the window's member count. */
    public static final String TOTAL_HEADER = "X-Changestream-Digest-Total";
    /** Header with the members counted but not listed. */
    public static final String OMITTED_HEADER = "X-Changestream-Digest-Omitted";

    private final HttpSender sender;
    private final MessageSettings messages;
    private final EmailDestination email;
    private final DestinationRateLimiter limiter;
    private final java.time.Clock clock;

    DigestDelivery(HttpSender sender, MessageSettings messages, EmailDestination email,
                   DestinationRateLimiter limiter, java.time.Clock clock) {
        this.sender = sender;
        this.messages = messages;
        this.email = email;
        this.limiter = limiter;
        this.clock = clock;
    }

    /** Sends the message to one destination; never throws for a delivery failure. */
    public DeliveryResult deliver(DigestMessage digest, SubscriptionDestination destination) {
        DeliveryRequest probe = DeliveryRequest.of(digest.subscription(), destination, placeholder(digest), 1);
        DeliveryResult throttled = throttle(probe);
        if (throttled != null) {
            return throttled;
        }
        DeliveryResult result = switch (destination.type()) {
            case WEBHOOK, GENERIC, SLACK, MS_TEAMS, G_CHAT -> {
                Prepared post = post(digest, destination);
                yield post.refused() != null ? post.refused() : sender.send(post.outbound());
            }
            case EMAIL -> email(digest, destination);
            default -> notTaken(destination);
        };
        return observed(probe, result);
    }

    /**
     * Sends the message to one destination without blocking the caller (issue 21 item 6): webhook and chat over the
     * sender's asynchronous client, e-mail on {@code blocking}. The stage completes with the result, never
     * exceptionally for a delivery failure; cancelling it cancels the request (and interrupts an e-mail send).
     */
    public CompletableFuture<DeliveryResult> deliverAsync(DigestMessage digest, SubscriptionDestination destination,
                                                          ExecutorService blocking) {
        DeliveryRequest probe = DeliveryRequest.of(digest.subscription(), destination, placeholder(digest), 1);
        DeliveryResult throttled = throttle(probe);
        if (throttled != null) {
            return CompletableFuture.completedFuture(throttled);
        }
        CompletableFuture<DeliveryResult> sent = switch (destination.type()) {
            case WEBHOOK, GENERIC, SLACK, MS_TEAMS, G_CHAT -> {
                Prepared post = post(digest, destination);
                yield post.refused() != null ? CompletableFuture.completedFuture(post.refused())
                        : sender.sendAsync(post.outbound());
            }
            // a cancel closes the SMTP socket and interrupts the send
            case EMAIL -> Cancellation.supplyInterruptibly(() -> email(digest, destination), blocking);
            default -> CompletableFuture.completedFuture(notTaken(destination));
        };
        CompletableFuture<DeliveryResult> result = sent.thenApply(r -> observed(probe, r));
        result.whenComplete((r, e) -> {
            if (e != null) {
                sent.cancel(true); // cancelled or timed out by the caller: the request is cancelled too
            }
        });
        return result;
    }

    private DeliveryResult throttle(DeliveryRequest probe) {
        java.time.Duration wait = limiter.acquire(probe);
        return wait.isZero() ? null : DeliveryResult.throttled(wait, "rate limit of destination "
                + CircuitBreakingDestination.key(probe) + ": next slot in " + wait.toMillis() + " ms");
    }

    private DeliveryResult observed(DeliveryRequest probe, DeliveryResult result) {
        if (result.retryAfter() != null) {
            limiter.observe(probe, result);
        }
        return result;
    }

    private static DeliveryResult notTaken(SubscriptionDestination destination) {
        return DeliveryResult.permanent("destination type " + destination.type() + " does not take digests");
    }

    /** The HTTP request of a webhook or chat digest, or the result that refuses it. */
    private record Prepared(DeliveryResult refused, HttpSender.Outbound outbound) {
    }

    private Prepared post(DigestMessage digest, SubscriptionDestination destination) {
        return switch (destination.type()) {
            case SLACK -> chat(ChatFormat.SLACK, digest, destination);
            case MS_TEAMS -> chat(ChatFormat.MS_TEAMS, digest, destination);
            case G_CHAT -> chat(ChatFormat.G_CHAT, digest, destination);
            default -> webhook(digest, destination);
        };
    }

    /** The key receivers deduplicate on: {@code <subscriptionId>:<flushId>}, the same on every attempt and instance. */
    public static String idempotencyKey(DigestMessage digest) {
        return digest.subscription().id() + ":" + digest.flushId();
    }

    /** The readable content, as one {@link ChangeMessage}: counts first, then the listed changes. */
    public ChangeMessage summary(DigestMessage digest) {
        List<String> lines = new ArrayList<>();
        digest.counts().forEach((what, n) -> lines.add(what + ": " + n));
        lines.add("");
        for (ChangeEvent event : digest.events()) {
            lines.add(ChangeMessage.of(event, messages).title());
        }
        if (digest.omitted() > 0) {
            lines.add("… and " + digest.omitted() + " more");
        }
        String base = messages.platformUrl().toString().replaceAll("/+$", "");
        return new ChangeMessage(digest.title(), digest.group().isEmpty() ? "all matching changes" : digest.group(),
                "changestream " + digest.kind(), digest.from() + " – " + digest.to(), lines, base);
    }

    private Prepared webhook(DigestMessage digest, SubscriptionDestination destination) {
        WebhookPost post = WebhookPost.prepare(destination, () -> {
            ArrayNode array = Json.mapper().createArrayNode();
            for (ChangeEvent event : digest.events()) {
                ObjectNode json = Json.mapper().valueToTree(event);
                json.put("subscriptionId", digest.subscription().id());
                json.put("subscriptionName", digest.subscription().name());
                array.add(json);
            }
            return Json.mapper().writeValueAsBytes(array);
        }, "cannot serialize the digest: ");
        if (post.refused() != null) {
            return new Prepared(post.refused(), null);
        }
        Map<String, String> headers = headers(post, digest);
        headers.put(TOTAL_HEADER, Integer.toString(digest.total()));
        headers.put(OMITTED_HEADER, Integer.toString(digest.omitted()));
        post.signed(headers, idempotencyKey(digest), clock.instant().getEpochSecond());
        return new Prepared(null, post.outbound(destination, headers));
    }

    private Prepared chat(ChatFormat format, DigestMessage digest, SubscriptionDestination destination) {
        WebhookPost post = WebhookPost.prepare(destination,
                () -> Json.mapper().writeValueAsBytes(format.render(summary(digest))), "cannot render the digest: ");
        if (post.refused() != null) {
            return new Prepared(post.refused(), null);
        }
        return new Prepared(null, post.outbound(destination, headers(post, digest)));
    }

    private Map<String, String> headers(WebhookPost post, DigestMessage digest) {
        return post.headers(WebhookPost.JSON_UTF8, idempotencyKey(digest), TraceContext.newTrace().format());
    }

    private DeliveryResult email(DigestMessage digest, SubscriptionDestination destination) {
        if (email == null) {
            return DeliveryResult.permanent("e-mail destinations need smtp.host");
        }
        Set<InternetAddress> to = new LinkedHashSet<>();
        try {
            List<ChangeEvent> events = digest.events().isEmpty() ? List.of(placeholder(digest)) : digest.events();
            for (ChangeEvent event : events) {
                to.addAll(email.receiversOf(DeliveryRequest.of(digest.subscription(), destination, event, 1)));
            }
        } catch (DestinationConfigException e) {
            return DeliveryResult.permanent(e.getMessage());
        } catch (PlatformUnavailableException e) {
            return DeliveryResult.retry(null, "receivers unknown: " + e.getMessage());
        }
        if (to.isEmpty()) {
            return DeliveryResult.skipped("the destination's receivers and roles select nobody for this digest");
        }
        ChangeMessage m = summary(digest);
        return email.send(List.copyOf(to), "[" + digest.subscription().name() + "] " + digest.title(),
                m.title() + "\n\n" + m.changesText() + "\n\n" + m.link() + "\n", html(digest),
                idempotencyKey(digest));
    }

    private String html(DigestMessage digest) {
        StringBuilder out = new StringBuilder("<html><body><h2>").append(EmailDestination.escape(digest.title()))
                .append("</h2><p>").append(EmailDestination.escape(digest.from() + " – " + digest.to()))
                .append("</p><table><tr><th align=\"left\">change</th><th align=\"right\">count</th></tr>");
        digest.counts().forEach((what, n) -> out.append("<tr><td>").append(EmailDestination.escape(what))
                .append("</td><td align=\"right\">").append(n).append("</td></tr>"));
        out.append("</table><ul>");
        for (ChangeEvent event : digest.events()) {
            ChangeMessage m = ChangeMessage.of(event, messages);
            out.append("<li><a href=\"").append(EmailDestination.escape(m.link())).append("\">")
                    .append(EmailDestination.escape(m.title())).append("</a> (").append(EmailDestination.escape(m.who()))
                    .append(", ").append(m.when()).append(")</li>");
        }
        out.append("</ul>");
        if (digest.omitted() > 0) {
            out.append("<p>… and ").append(digest.omitted()).append(" more</p>");
        }
        return out.append("</body></html>").toString();
    }

    /** An event standing for the digest where a single event is needed (rate-limit key, role lookups). */
    private static ChangeEvent placeholder(DigestMessage digest) {
        return digest.events().isEmpty()
                ? new ChangeEvent(digest.flushId(), "digest", "digest", digest.flushId(), null, null, null, null,
                null, null, digest.to().toEpochMilli(), null, null, null, null)
                : digest.events().get(0);
    }

    /** Whether a destination type takes digests (not OpenLineage, nor the platform-internal types). */
    public static boolean takesDigests(SubscriptionType type) {
        return switch (type) {
            case WEBHOOK, GENERIC, SLACK, MS_TEAMS, G_CHAT, EMAIL -> true;
            default -> false;
        };
    }
}
