package io.changestream.alerts.destination;

import io.changestream.alerts.destination.webhook.WebhookConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class SecretsTest {

    @Test
    void masksSecretsAtAnyDepthAndLeavesTheRest() {
        JsonNode config = Fixtures.json("{\"endpoint\":\"https://x\",\"secretKey\":\"s3cret\","
                + "\"nested\":{\"password\":\"pw\",\"list\":[{\"token\":\"t\"}]},\"empty\":\"\"}");
        JsonNode masked = Secrets.masked(config);
        assertEquals(Secrets.MASK, masked.get("secretKey").asText());
        assertEquals(Secrets.MASK, masked.get("nested").get("password").asText());
        assertEquals(Secrets.MASK, masked.get("nested").get("list").get(0).get("token").asText());
        assertEquals("https://x", masked.get("endpoint").asText());
        assertFalse(masked.toString().contains("s3cret"));
        assertEquals("s3cret", config.get("secretKey").asText(), "the original is untouched");
    }

    @Test
    void aMaskedSecretSentBackKeepsTheStoredOne() {
        JsonNode stored = Fixtures.json("{\"endpoint\":\"https://x\",\"secretKey\":\"s3cret\"}");
        JsonNode incoming = Fixtures.json("{\"endpoint\":\"https://y\",\"secretKey\":\"" + Secrets.MASK + "\"}");
        JsonNode merged = Secrets.unmask(incoming, stored);
        assertEquals("s3cret", merged.get("secretKey").asText());
        assertEquals("https://y", merged.get("endpoint").asText());
        JsonNode changed = Secrets.unmask(Fixtures.json("{\"secretKey\":\"new\"}"), stored);
        assertEquals("new", changed.get("secretKey").asText());
    }

    @Test
    void configToStringMasksTheSecret() {
        WebhookConfig config = WebhookConfig.parse(Fixtures.json(
                "{\"endpoint\":\"https://x.example/h\",\"secretKey\":\"s3cret\"}"));
        assertFalse(config.toString().contains("s3cret"), config.toString());
    }

    @Test
    void chatUrlsAreTheSecretAndAreMaskedBeyondTheHost() {
        JsonNode slack = Fixtures.json("{\"endpoint\":\"https://hooks.slack.com/services/T000/B000/XXXXtoken\"}");
        assertEquals("https://hooks.slack.com/" + Secrets.MASK,
                Secrets.masked(io.changestream.topics.model.SubscriptionType.SLACK, slack).get("endpoint").asText());
        JsonNode teams = Fixtures.json("{\"endpoint\":\"https://acme.webhook.office.com/webhookb2/abc/IncomingWebhook/def\"}");
        assertEquals("https://acme.webhook.office.com/" + Secrets.MASK,
                Secrets.masked(io.changestream.topics.model.SubscriptionType.MS_TEAMS, teams).get("endpoint").asText());
        JsonNode gchat = Fixtures.json("{\"endpoint\":\"https://chat.example.com/v1/spaces/AAA/messages?key=k&token=t\"}");
        assertEquals("https://chat.example.com/" + Secrets.MASK + "?" + Secrets.MASK,
                Secrets.masked(io.changestream.topics.model.SubscriptionType.G_CHAT, gchat).get("endpoint").asText());
        JsonNode slackAsWebhook = Fixtures.json("{\"endpoint\":\"https://hooks.slack.com/services/T/B/tok\"}");
        assertEquals("https://hooks.slack.com/" + Secrets.MASK, Secrets.masked(slackAsWebhook).get("endpoint").asText(),
                "a known incoming-webhook host whatever the type");
    }

    @Test
    void webhookUrlsKeepTheirPathButNotQueryOrUserInfoAndEveryHeaderValueIsMasked() {
        JsonNode config = Fixtures.json("{\"endpoint\":\"https://user:pw@hooks.example.com:8443/in/alerts?code=abc\","
                + "\"headers\":{\"X-Api-Key\":\"k1\",\"X-Team\":\"data\"},\"queryParams\":{\"sig\":\"s1\"},"
                + "\"apiKey\":\"k2\",\"httpMethod\":\"POST\"}");
        JsonNode masked = Secrets.masked(config);
        assertEquals("https://" + Secrets.MASK + "@hooks.example.com:8443/in/alerts?" + Secrets.MASK,
                masked.get("endpoint").asText());
        assertEquals(Secrets.MASK, masked.get("headers").get("X-Api-Key").asText());
        assertEquals(Secrets.MASK, masked.get("headers").get("X-Team").asText());
        assertEquals(Secrets.MASK, masked.get("queryParams").get("sig").asText());
        assertEquals(Secrets.MASK, masked.get("apiKey").asText());
        assertEquals("POST", masked.get("httpMethod").asText());
        for (String secret : new String[] {"pw", "abc", "k1", "data", "s1", "k2"}) {
            assertFalse(masked.toString().contains("\"" + secret) || masked.toString().contains(secret + "\""),
                    secret + " in " + masked);
        }
    }

    @Test
    void sendingBackTheMaskedFormKeepsEveryStoredSecretAndAChangedValueWins() {
        io.changestream.topics.model.SubscriptionType slack = io.changestream.topics.model.SubscriptionType.SLACK;
        JsonNode stored = Fixtures.json("{\"endpoint\":\"https://hooks.slack.com/services/T/B/tok\","
                + "\"headers\":{\"X-Api-Key\":\"k1\"},\"secretKey\":\"s\"}");
        JsonNode roundTrip = Secrets.unmask(slack, Secrets.masked(slack, stored), stored);
        assertEquals(stored, roundTrip);

        JsonNode edited = Secrets.masked(slack, stored).deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) edited.get("headers")).put("X-Api-Key", "k2");
        ((com.fasterxml.jackson.databind.node.ObjectNode) edited).put("endpoint", "https://hooks.slack.com/services/T/B/new");
        JsonNode merged = Secrets.unmask(slack, edited, stored);
        assertEquals("k2", merged.get("headers").get("X-Api-Key").asText());
        assertEquals("https://hooks.slack.com/services/T/B/new", merged.get("endpoint").asText());
        assertEquals("s", merged.get("secretKey").asText());
    }

    @Test
    void theRuleIsTheSharedSecretSettingsPlusApiKeys() {
        for (String name : new String[] {"password", "secretKey", "token", "accessToken", "clientSecret", "apiKey",
                "api_key", "Authorization", "credentials"}) {
            org.junit.jupiter.api.Assertions.assertTrue(Secrets.isSecretField(name), name);
        }
        assertFalse(Secrets.isSecretField("endpoint"));
        assertFalse(Secrets.isSecretField("httpMethod"));
    }

    @Test
    void aMaskedSecretDoesNotFollowANewEndpointOrType() {
        io.changestream.topics.model.SubscriptionType webhook = io.changestream.topics.model.SubscriptionType.WEBHOOK;
        io.changestream.topics.model.SubscriptionType slack = io.changestream.topics.model.SubscriptionType.SLACK;
        JsonNode stored = Fixtures.json("{\"endpoint\":\"https://a.example/h\",\"headers\":{\"X-Api-Key\":\"k1\"}}");
        JsonNode same = Secrets.unmaskForUpdate(webhook, Secrets.masked(webhook, stored), webhook, stored);
        assertEquals(stored, same, "same target: the stored secrets are kept");

        JsonNode moved = Secrets.masked(webhook, stored).deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) moved).put("endpoint", "https://b.example/h");
        DestinationConfigException refused = org.junit.jupiter.api.Assertions.assertThrows(
                DestinationConfigException.class, () -> Secrets.unmaskForUpdate(webhook, moved, webhook, stored));
        assertEquals("config.headers.X-Api-Key", refused.field());
        DestinationConfigException retyped = org.junit.jupiter.api.Assertions.assertThrows(
                DestinationConfigException.class, () -> Secrets.unmaskForUpdate(slack, Secrets.masked(webhook, stored),
                        webhook, stored));
        assertEquals("config.headers.X-Api-Key", retyped.field());

        ((com.fasterxml.jackson.databind.node.ObjectNode) moved.get("headers")).put("X-Api-Key", "k2");
        assertEquals("k2", Secrets.unmaskForUpdate(webhook, moved, webhook, stored).get("headers").get("X-Api-Key")
                .asText(), "a new target with its secrets sent again is fine");
    }
}
