package io.changestream.alerts.destination;

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
}
