package io.changestream.topics.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.topics.Samples;
import io.changestream.topics.TopicsException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Input that cannot become a record fails with a {@link MalformedRecordException} naming topic and path. */
class MalformedInputTest {

    private static final String TOPIC = "cs.changes";

    private static MalformedRecordException failChangeEvent(String json) {
        return assertThrows(MalformedRecordException.class,
                () -> Serdes.changeEvent().deserialize(TOPIC, json.getBytes(StandardCharsets.UTF_8)));
    }

    private static ObjectNode updated() {
        return (ObjectNode) Samples.tree("change-event-entity-updated.json");
    }

    @Test
    void missingRequiredFieldIsNamed() {
        for (String field : new String[] {"id", "eventType", "entityType", "entityId", "timestamp"}) {
            ObjectNode json = updated();
            json.remove(field);
            var e = failChangeEvent(json.toString());
            assertEquals("$." + field, e.path(), e.getMessage());
            assertTrue(e.getMessage().contains(TOPIC), e.getMessage());
            assertTrue(e.getMessage().contains("ChangeEvent"), e.getMessage());
        }
    }

    @Test
    void explicitNullRequiredFieldIsNamed() {
        ObjectNode json = updated();
        json.putNull("entityId");
        var e = failChangeEvent(json.toString());
        assertTrue(e.getMessage().contains("entityId"), e.getMessage());
        json = updated();
        json.putNull("timestamp");
        e = failChangeEvent(json.toString());
        assertEquals("$.timestamp", e.path(), e.getMessage());
    }

    @Test
    void wrongTypeIsReportedAtItsNestedPath() {
        ObjectNode json = updated();
        ((ObjectNode) json.at("/changeDescription/fieldsUpdated/0")).putArray("name").add(1);
        var e = failChangeEvent(json.toString());
        assertEquals("$.changeDescription.fieldsUpdated[0].name", e.path(), e.getMessage());

        json = updated();
        json.put("timestamp", "yesterday");
        assertEquals("$.timestamp", failChangeEvent(json.toString()).path());

        json = updated();
        json.put("timestamp", "1764407600456");
        assertEquals("$.timestamp", failChangeEvent(json.toString()).path(), "numeric strings are not coerced");

        json = updated();
        json.put("domains", "not-a-list");
        assertEquals("$.domains", failChangeEvent(json.toString()).path());
    }

    @Test
    void unknownEnumValueIsReportedAtItsPath() {
        var e = assertThrows(MalformedRecordException.class, () -> Serdes.pipelineRunStatus().fromJson(
                "{\"pipelineFqn\":\"p\",\"runId\":\"r\",\"state\":\"exploded\",\"timestamp\":1}"));
        assertEquals("$.state", e.path());
        assertTrue(e.getMessage().contains("exploded"), e.getMessage());

        ObjectNode subscription = (ObjectNode) Samples.tree("event-subscription-ui.json");
        ((ObjectNode) subscription.at("/destinations/1")).put("type", "Pager");
        e = assertThrows(MalformedRecordException.class,
                () -> Serdes.eventSubscription().fromJson(subscription.toString()));
        assertEquals("$.destinations[1].type", e.path());
    }

    @Test
    void invalidJsonIsReportedWithItsLocation() {
        var e = failChangeEvent("{\"id\": \"e\", \"eventType\": }");
        assertTrue(e.getMessage().contains("not valid JSON"), e.getMessage());
        assertTrue(e.getMessage().contains("line 1"), e.getMessage());
        assertEquals("$.eventType", e.path());
        e = failChangeEvent("{\"id\": \"e\"");
        assertTrue(e.getMessage().contains("not valid JSON"), e.getMessage());
    }

    @Test
    void nonObjectsEmptyInputAndTrailingGarbageAreRejected() {
        assertEquals("$", failChangeEvent("[1,2]").path());
        assertEquals("$", failChangeEvent("\"just a string\"").path());
        var e = assertThrows(MalformedRecordException.class,
                () -> Serdes.changeEvent().deserialize(TOPIC, new byte[0]));
        assertTrue(e.getMessage().contains("empty"), e.getMessage());
        failChangeEvent(updated().toString() + " {}");
        assertThrows(MalformedRecordException.class,
                () -> Serdes.changeEvent().deserialize(TOPIC, new byte[] {(byte) 0xC3, (byte) 0x28}));
    }

    @Test
    void invalidValuesFromRecordConstructorsAreReported() {
        var e = assertThrows(MalformedRecordException.class, () -> Serdes.eventSubscription().fromJson(
                "{\"id\":\"s\",\"name\":\"n\",\"batchSize\":0}"));
        assertTrue(e.getMessage().contains("batchSize"), e.getMessage());
        e = assertThrows(MalformedRecordException.class, () -> Serdes.eventSubscription().fromJson(
                "{\"id\":\"s\",\"name\":\"n\",\"destinations\":[{\"category\":\"External\"}]}"));
        assertTrue(e.getMessage().contains("type"), e.getMessage());
        assertTrue(e.path().startsWith("$.destinations[0]"), e.path());
    }

    @Test
    void malformedRecordExceptionIsATopicsException() {
        TopicsException e = failChangeEvent("{}");
        assertTrue(e instanceof MalformedRecordException);
        assertEquals(TOPIC, ((MalformedRecordException) e).topic());
    }
}
