package io.changestream.alerts.destination.chat;

import io.changestream.alerts.destination.LocalReceiver;
import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.ChangeMessage;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChatDestinationTest {

    private static final MessageSettings MESSAGES = new MessageSettings(URI.create("https://om.example.com/"), 20, 200);
    private static final String LINK = "https://om.example.com/table/svc.db.sales.orders";

    private final LocalReceiver receiver = new LocalReceiver();
    private final HttpSender sender = new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
            Clock.systemUTC());

    @AfterEach
    void stop() {
        receiver.close();
    }

    private JsonNode deliver(ChatFormat format) {
        SubscriptionDestination d = Fixtures.destination("chat", format.type(),
                "{\"endpoint\":\"" + receiver.uri("/chat") + "\"}");
        DeliveryResult result = new ChatDestination(format, sender, MESSAGES)
                .deliver(DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1));
        assertEquals(Kind.DELIVERED, result.outcome());
        LocalReceiver.Received got = receiver.received().get(receiver.received().size() - 1);
        assertTrue(got.header("Idempotency-Key").endsWith(Fixtures.event().id()));
        return Fixtures.json(new String(got.body(), StandardCharsets.UTF_8));
    }

    @Test
    void slackGetsBlockKitWithEntityWhoWhenChangesAndLink() {
        JsonNode body = deliver(ChatFormat.SLACK);
        assertEquals("table updated: svc.db.sales.orders", body.get("text").asText());
        JsonNode blocks = body.get("blocks");
        assertEquals("header", blocks.get(0).get("type").asText());
        assertTrue(blocks.get(1).get("text").get("text").asText().contains("<" + LINK + "|table svc.db.sales.orders>"));
        assertEquals("*By:*\nalice", blocks.get(1).get("fields").get(0).get("text").asText());
        assertEquals("*When:*\n2023-11-14T22:13:20Z", blocks.get(1).get("fields").get(1).get("text").asText());
        String changes = blocks.get(2).get("text").get("text").asText();
        assertTrue(changes.contains("Added tags: PII"), changes);
        assertTrue(changes.contains("Updated description: old text → new text"), changes);
        assertEquals(LINK, blocks.get(3).get("elements").get(0).get("url").asText());
    }

    @Test
    void teamsGetsAnAdaptiveCardMessage() {
        JsonNode body = deliver(ChatFormat.MS_TEAMS);
        assertEquals("message", body.get("type").asText());
        JsonNode attachment = body.get("attachments").get(0);
        assertEquals("application/vnd.microsoft.card.adaptive", attachment.get("contentType").asText());
        JsonNode card = attachment.get("content");
        assertEquals("AdaptiveCard", card.get("type").asText());
        JsonNode facts = card.get("body").get(1).get("facts");
        assertEquals("alice", facts.get(1).get("value").asText());
        assertTrue(card.get("body").get(2).get("text").asText().contains("Updated description"));
        assertEquals("Action.OpenUrl", card.get("actions").get(0).get("type").asText());
        assertEquals(LINK, card.get("actions").get(0).get("url").asText());
    }

    @Test
    void googleChatGetsCardsV2() {
        JsonNode body = deliver(ChatFormat.G_CHAT);
        JsonNode card = body.get("cardsV2").get(0).get("card");
        assertEquals("table updated: svc.db.sales.orders", card.get("header").get("title").asText());
        JsonNode widgets = card.get("sections").get(0).get("widgets");
        assertEquals("alice", widgets.get(0).get("decoratedText").get("text").asText());
        assertTrue(widgets.get(2).get("textParagraph").get("text").asText().contains("Added tags"));
        assertEquals(LINK, widgets.get(3).get("buttonList").get("buttons").get(0).get("onClick").get("openLink")
                .get("url").asText());
    }

    @Test
    void longChangeListsAreBounded() {
        MessageSettings two = new MessageSettings(URI.create("https://om"), 1, 10);
        ChangeMessage m = ChangeMessage.of(Fixtures.event(), two);
        assertEquals(2, m.changes().size());
        assertEquals("… and 1 more", m.changes().get(1));
        assertEquals(SubscriptionType.SLACK, ChatFormat.SLACK.type());
    }
}
