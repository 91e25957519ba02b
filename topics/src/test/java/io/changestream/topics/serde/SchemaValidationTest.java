package io.changestream.topics.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.changestream.topics.Samples;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.PipelineRunStatus;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every record validates against its JSON Schema, and the schemas reject the wrong types. */
class SchemaValidationTest {

    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7,
            builder -> builder.schemaMappers(m -> m.mapPrefix(Schemas.BASE_URI, "classpath:" + Schemas.CLASSPATH_DIR)));

    private static JsonSchema schema(Class<?> type) {
        return FACTORY.getSchema(SchemaLocation.of(Schemas.id(type)));
    }

    private static Set<ValidationMessage> validate(Class<?> type, JsonNode json) {
        return schema(type).validate(json);
    }

    @Test
    void everyRecordTypeHasASchemaAndASample() {
        Set<Class<?>> sampled = new HashSet<>();
        Samples.oneOfEach().forEach(record -> sampled.add(record.getClass()));
        assertEquals(Schemas.types(), sampled);
    }

    @Test
    void everySerializedRecordValidates() {
        for (Object record : Samples.oneOfEach()) {
            @SuppressWarnings("unchecked")
            JsonSerde<Object> serde = (JsonSerde<Object>) JsonSerde.of(record.getClass());
            JsonNode json = Json.mapper().valueToTree(record);
            Set<ValidationMessage> errors = validate(record.getClass(), json);
            assertTrue(errors.isEmpty(), record.getClass().getSimpleName() + ": " + errors + " in "
                    + serde.toJson(record));
        }
    }

    @Test
    void platformSamplesValidateBeforeAndAfterTheRoundTrip() {
        for (Map.Entry<String, Class<?>> sample : Samples.PLATFORM_FILES.entrySet()) {
            JsonNode input = Samples.tree(sample.getKey());
            assertTrue(validate(sample.getValue(), input).isEmpty(), sample.getKey() + ": "
                    + validate(sample.getValue(), input));
            Object record = JsonSerde.of(sample.getValue()).fromJson(input.toString());
            JsonNode output = Json.mapper().valueToTree(record);
            assertTrue(validate(sample.getValue(), output).isEmpty(), sample.getKey() + " after round trip: "
                    + validate(sample.getValue(), output));
        }
    }

    @Test
    void schemasRejectWrongTypes() {
        assertRejected(ChangeEvent.class, "change-event-entity-updated.json", json -> json.put("timestamp", "now"));
        assertRejected(ChangeEvent.class, "change-event-entity-updated.json", json -> json.remove("entityId"));
        assertRejected(ChangeEvent.class, "change-event-entity-updated.json",
                json -> ((ObjectNode) json.at("/changeDescription/fieldsUpdated/0")).put("name", 5));
        assertRejected(ChangeEvent.class, "change-event-entity-created.json",
                json -> ((ObjectNode) json.get("source")).put("sourceOffset", "48213"));
        assertRejected(PipelineRunStatus.class, "pipeline-run-status.json", json -> json.put("state", "RUNNING"));
        assertRejected(io.changestream.topics.model.EventSubscription.class, "event-subscription-ui.json",
                json -> ((ObjectNode) json.at("/destinations/0")).put("type", "Pager"));
        assertRejected(io.changestream.topics.model.EventSubscription.class, "event-subscription-ui.json",
                json -> json.put("batchSize", "100"));
        assertRejected(io.changestream.topics.model.EventSubscription.class, "event-subscription-ui.json",
                json -> ((ObjectNode) json.at("/filteringRules/rules/0")).put("effect", "allow"));

        ObjectNode logs = Json.mapper().valueToTree(LogStreamEvent.logs("r", "x", "1", false, false));
        logs.put("extra", 1);
        assertFalse(validate(LogStreamEvent.class, logs).isEmpty(), "additional properties are rejected");
        ObjectNode failed = Json.mapper().valueToTree(Samples.oneOfEach().get(4));
        ((ObjectNode) failed.get("changeEvent")).remove("id");
        assertFalse(validate(io.changestream.topics.model.FailedEvent.class, failed).isEmpty(),
                "the nested change event is validated through $ref");
        failed = Json.mapper().valueToTree(Samples.oneOfEach().get(4));
        failed.put("source", "BROKER");
        assertFalse(validate(io.changestream.topics.model.FailedEvent.class, failed).isEmpty());
    }

    private static void assertRejected(Class<?> type, String sample, Consumer<ObjectNode> breakIt) {
        ObjectNode json = (ObjectNode) Samples.tree(sample);
        assertTrue(validate(type, json).isEmpty(), "the unbroken sample validates");
        breakIt.accept(json);
        assertFalse(validate(type, json).isEmpty(), "schema of " + type.getSimpleName() + " accepted " + json);
    }
}
