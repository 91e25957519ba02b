package io.changestream.topics.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.Samples;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Platform-shaped JSON survives read → write unchanged (defaults may be added), and records survive write → read. */
class RoundTripTest {

    @Test
    void platformSamplesRoundTripWithEveryFieldKept() throws Exception {
        for (Map.Entry<String, Class<?>> sample : Samples.PLATFORM_FILES.entrySet()) {
            JsonNode input = Samples.tree(sample.getKey());
            JsonSerde<?> serde = JsonSerde.of(sample.getValue());
            Object record = serde.deserialize("cs.test", input.toString().getBytes());
            JsonNode output = Json.mapper().readTree(write(serde, record));
            assertContains(input, output, "$", sample.getKey());
            Object again = serde.deserialize("cs.test", output.toString().getBytes());
            assertEquals(record, again, sample.getKey() + ": read(write(read(x))) == read(x)");
        }
    }

    @Test
    void subscriptionRoundTripAddsOnlyThePlatformDefaults() throws Exception {
        JsonNode input = Samples.tree("event-subscription-ui.json");
        EventSubscription subscription = Serdes.eventSubscription().fromJson(input.toString());
        JsonNode output = Json.mapper().readTree(Serdes.eventSubscription().toJson(subscription));
        assertEquals(100, output.get("batchSize").asInt());
        assertEquals(true, output.get("enabled").asBoolean());
        JsonNode slack = output.get("destinations").get(1);
        assertEquals(true, slack.get("enabled").asBoolean());
        JsonNode email = output.get("destinations").get(2);
        assertEquals(10, email.get("timeout").asInt());
        assertEquals(12, email.get("readTimeout").asInt());
        assertEquals(false, email.get("notifyDownstream").asBoolean(), "unmodelled destination field kept");
        assertEquals(input.get("href"), output.get("href"), "unmodelled subscription field kept");
        assertEquals(input.get("deleted"), output.get("deleted"));
    }

    @Test
    void everyRecordSurvivesWriteThenRead() {
        for (Object record : Samples.oneOfEach()) {
            @SuppressWarnings("unchecked")
            JsonSerde<Object> serde = (JsonSerde<Object>) JsonSerde.of(record.getClass());
            byte[] bytes = serde.serialize("cs.test", record);
            assertEquals(record, serde.deserialize("cs.test", bytes), record.getClass().getSimpleName());
        }
    }

    @Test
    void nullsAreOmittedOnWrite() {
        ChangeEvent minimal = new ChangeEvent("e", "entityCreated", "table", "t", null, null, null, null, null, null,
                1L, null, null, null);
        assertEquals("{\"id\":\"e\",\"eventType\":\"entityCreated\",\"entityType\":\"table\",\"entityId\":\"t\","
                + "\"timestamp\":1}", Serdes.changeEvent().toJson(minimal));
    }

    @Test
    void nullIsATombstoneBothWays() {
        assertNull(Serdes.eventSubscription().serialize("cs.subscriptions", null));
        assertNull(Serdes.eventSubscription().deserialize("cs.subscriptions", null));
    }

    @Test
    void unknownFieldsAreTolerated() {
        String json = "{\"pipelineFqn\":\"p\",\"runId\":\"r\",\"state\":\"running\",\"timestamp\":5,"
                + "\"somethingNew\":{\"nested\":[1,2]}}";
        assertEquals("p", Serdes.pipelineRunStatus().fromJson(json).pipelineFqn());
    }

    @SuppressWarnings("unchecked")
    private static byte[] write(JsonSerde<?> serde, Object record) {
        return ((JsonSerde<Object>) serde).serialize("cs.test", record);
    }

    /** Every field and array element of {@code expected} is in {@code actual} with an equal value. */
    static void assertContains(JsonNode expected, JsonNode actual, String path, String sample) {
        if (actual == null) {
            fail(sample + ": " + path + " is missing after the round trip");
        }
        if (expected.isObject()) {
            assertTrue(actual.isObject(), sample + ": " + path + " is no longer an object");
            for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                assertContains(field.getValue(), actual.get(field.getKey()), path + "." + field.getKey(), sample);
            }
        } else if (expected.isArray()) {
            assertEquals(expected.size(), actual.size(), sample + ": size of " + path);
            for (int i = 0; i < expected.size(); i++) {
                assertContains(expected.get(i), actual.get(i), path + "[" + i + "]", sample);
            }
        } else {
            assertEquals(expected, actual, sample + ": " + path);
        }
    }

    @Test
    void explicitNullsInFreeFormValuesSurvive() throws Exception {
        String json = "{\"id\":\"e\",\"eventType\":\"entityUpdated\",\"entityType\":\"table\",\"entityId\":\"t\","
                + "\"timestamp\":1,\"changeDescription\":{\"fieldsUpdated\":[{\"name\":\"owner\",\"oldValue\":null,"
                + "\"newValue\":{\"id\":\"u\"}}]},\"futureField\":null}";
        ChangeEvent event = Serdes.changeEvent().fromJson(json);
        JsonNode output = Json.mapper().readTree(Serdes.changeEvent().toJson(event));
        assertContains(Json.mapper().readTree(json), output, "$", "inline");
        assertEquals(event, Serdes.changeEvent().fromJson(output.toString()));
    }
}
