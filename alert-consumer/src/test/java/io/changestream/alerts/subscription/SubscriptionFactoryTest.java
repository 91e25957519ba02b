package io.changestream.alerts.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.Secrets;
import io.changestream.topics.model.AlertType;
import io.changestream.topics.model.Effect;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SubscriptionFactoryTest {

    private final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private final SubscriptionFactory factory = Requests.factory(clock);

    private static SubscriptionException.Invalid invalid(Runnable call) {
        return assertThrows(SubscriptionException.Invalid.class, call::run);
    }

    @Test
    void convertsThePlatformsCreateRequest() {
        EventSubscription s = factory.fromRequest(Requests.json(Requests.create("table-changes",
                "https://hooks.example.com/om")), null, "admin");

        UUID.fromString(s.id());
        assertEquals("table-changes", s.name());
        assertEquals("table-changes", s.fullyQualifiedName());
        assertEquals(AlertType.NOTIFICATION, s.alertType());
        assertEquals(100, s.batchSize());
        assertEquals(3, s.retries());
        assertEquals(30, s.pollInterval(), "accepted and kept, not used");
        assertEquals(0.1, s.version());
        assertEquals(clock.millis(), s.updatedAt());
        assertEquals("admin", s.updatedBy());
        assertEquals(java.util.List.of("table"), s.filteringRules().resources());
        assertEquals("matchAnyEventType({'entityCreated','entityUpdated'})",
                s.filteringRules().rules().get(0).condition());
        assertEquals(Effect.EXCLUDE, s.filteringRules().rules().get(1).effect());
        assertEquals("isBot()", s.filteringRules().rules().get(1).condition());
        SubscriptionDestination d = s.destinations().get(0);
        UUID.fromString(d.id());
        assertEquals(SubscriptionType.WEBHOOK, d.type());
        assertEquals(10, d.timeout());
        assertEquals(12, d.readTimeout());
        assertTrue(s.additionalProperties().containsKey("className"), "unmodelled fields are kept");
        assertEquals("Sales", s.domains().get(0).asText());
    }

    @Test
    void appliesDefaultsToAMinimalRequest() {
        EventSubscription s = factory.fromRequest(Requests.json("{\"name\":\"min\",\"resources\":[\"all\"]}"),
                null, "admin");
        assertEquals(AlertType.NOTIFICATION, s.alertType());
        assertTrue(s.enabled());
        assertTrue(s.filteringRules().rules().isEmpty());
        assertTrue(s.destinations().isEmpty());
    }

    @Test
    void errorsNameTheField() {
        assertEquals("name", invalid(() -> factory.fromRequest(Requests.json("{\"resources\":[\"all\"]}"),
                null, "a")).field());
        assertEquals("resources", invalid(() -> factory.fromRequest(Requests.json("{\"name\":\"x\"}"),
                null, "a")).field());
        assertEquals("alertType", invalid(() -> factory.fromRequest(Requests.json(
                "{\"name\":\"x\",\"resources\":[\"all\"],\"alertType\":\"Nope\"}"), null, "a")).field());
        assertEquals("retries", invalid(() -> factory.fromRequest(Requests.json(
                "{\"name\":\"x\",\"resources\":[\"all\"],\"retries\":-1}"), null, "a")).field());
        assertEquals("destinations[0].type", invalid(() -> factory.fromRequest(Requests.json(
                "{\"name\":\"x\",\"resources\":[\"all\"],\"destinations\":[{\"category\":\"External\"}]}"),
                null, "a")).field());
        assertEquals("destinations[0].config.endpoint", invalid(() -> factory.fromRequest(Requests.json(
                Requests.create("x", "not a url")), null, "a")).field());
        assertEquals("destinations[0].timeout", invalid(() -> factory.fromRequest(Requests.json(
                "{\"name\":\"x\",\"resources\":[\"all\"],\"destinations\":[{\"category\":\"External\","
                        + "\"type\":\"Webhook\",\"timeout\":0,\"config\":{\"endpoint\":\"https://e.x\"}}]}"),
                null, "a")).field());
        assertEquals("input.filters[0].name", invalid(() -> factory.fromRequest(Requests.json(
                "{\"name\":\"x\",\"resources\":[\"all\"],\"input\":{\"filters\":[{\"name\":\"magic\"}]}}"),
                null, "a")).field());
    }

    @Test
    void ssrfTargetsAreRefusedAtSave() {
        SubscriptionException.Invalid e = invalid(() -> factory.fromRequest(Requests.json(
                Requests.create("x", "http://169.254.169.254/latest/meta-data")), null, "a"));
        assertEquals("destinations[0].config.endpoint", e.field());
        assertTrue(e.getMessage().contains("refused"), e.getMessage());
    }

    @Test
    void aBadHandWrittenExpressionIsRefusedWithItsPosition() {
        SubscriptionException.Invalid e = invalid(() -> factory.fromRequest(Requests.json("""
                {"name":"x","resources":["all"],"filteringRules":{"rules":[
                  {"name":"custom","effect":"include","condition":"matchAnyEventType({'entityCreated'}) &&"}]}}
                """), null, "a"));
        assertEquals("filteringRules.rules[0].condition", e.field());
        assertTrue(e.getMessage().contains("position 39"), e.getMessage());
        EventSubscription ok = factory.fromRequest(Requests.json("""
                {"name":"x","resources":["all"],"filteringRules":{"rules":[
                  {"name":"custom","effect":"include","condition":"matchAnyEventType({'entityCreated'}) || isBot()"}]}}
                """), null, "a");
        assertEquals(1, ok.filteringRules().rules().size());
    }

    @Test
    void anUpdateKeepsTheIdBumpsTheVersionAndKeepsAMaskedSecret() {
        EventSubscription first = factory.fromRequest(Requests.json(Requests.create("t",
                "https://hooks.example.com/om")), null, "admin");
        ObjectNode again = (ObjectNode) Requests.json(Requests.create("t", "https://hooks.example.com/om"));
        ObjectNode destination = (ObjectNode) again.get("destinations").get(0);
        destination.put("id", first.destinations().get(0).id());
        ((ObjectNode) destination.get("config")).put("secretKey", Secrets.MASK);
        ((ObjectNode) destination.get("config").get("headers")).put("X-Team", "ops"); // same endpoint (issue 21)

        EventSubscription second = factory.fromRequest(again, first, "admin");

        assertEquals(first.id(), second.id());
        assertEquals(0.2, second.version());
        JsonNode config = second.destinations().get(0).config();
        assertEquals("top-secret-key", config.get("secretKey").asText());
        assertEquals("ops", config.get("headers").get("X-Team").asText());
        assertNotEquals(first.destinations().get(0).config(), config);
    }
}
