package io.changestream.topics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.changestream.topics.model.CdcDeadLetter;
import io.changestream.topics.model.ChangeDescription;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FailedEvent;
import io.changestream.topics.model.FailureSource;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.model.LogChunk;
import io.changestream.topics.model.LogStreamEvent;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.SourcePosition;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Test samples: the platform-shaped JSON files under {@code samples/} and one record of every value type. */
public final class Samples {

    /** Platform-shaped JSON samples and the record type each is read as. */
    public static final Map<String, Class<?>> PLATFORM_FILES = Map.of(
            "change-event-entity-created.json", ChangeEvent.class,
            "change-event-entity-updated.json", ChangeEvent.class,
            "change-event-entity-soft-deleted.json", ChangeEvent.class,
            "pipeline-run-status.json", PipelineRunStatus.class,
            "event-subscription-ui.json", EventSubscription.class);

    private Samples() {
    }

    /** The text of {@code samples/<file>}. */
    public static String text(String file) {
        try (InputStream in = Samples.class.getClassLoader().getResourceAsStream("samples/" + file)) {
            if (in == null) {
                throw new IllegalStateException("no test resource samples/" + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code samples/<file>} as a JSON tree. */
    public static JsonNode tree(String file) {
        try {
            return Json.mapper().readTree(text(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The entityUpdated sample as a record. */
    public static ChangeEvent updatedEvent() {
        return Serdes.changeEvent().fromJson(text("change-event-entity-updated.json"));
    }

    /** A small event built in code (no platform extras). */
    public static ChangeEvent builtEvent() {
        return new ChangeEvent("e-1", ChangeEvent.ENTITY_UPDATED, "table", "t-1", List.of("d-1"), "svc.db.s.t", 0.1,
                0.2, "bob", null, 1_764_000_000_000L,
                new ChangeDescription(List.of(), List.of(new FieldChange("description", TextNode.valueOf("a"),
                        TextNode.valueOf("b"))), List.of(), 0.1),
                Json.mapper().createObjectNode().put("name", "t"),
                new SourcePosition("public.change_event", 7L, "0/16B3748", 1L, 2L));
    }

    /** One record of every value type that has a schema. */
    public static List<Object> oneOfEach() {
        ChangeEvent event = builtEvent();
        return List.of(
                event,
                new PipelineRunStatus("svc.pipe", "run-1", PipelineState.RUNNING, 1L, null, 2L),
                Serdes.eventSubscription().fromJson(text("event-subscription-ui.json")),
                new DeliveryRecord("cs-alerts", "sub-1", event.id(), "dest-1", DeliveryRecord.DELIVERED, 1, 3L,
                        "cs.changes", 4, 42L),
                new FailedEvent("sub-1", event, "HTTP 500 from https://hooks.example.com", FailureSource.PUBLISHER,
                        0, 4, 5L, "dest-1"),
                new LogChunk("svc.pipe", "run-1", "chunk:0", "chunk:120", "INFO starting\n", 6L),
                LogStreamEvent.logs("run-1", "INFO starting\n", "chunk:120", true, false),
                new CdcDeadLetter("public.change_event", "0/16B3748", 8L, "{\"offset\":8,\"json\":\"\"}",
                        "blank json column", 9L));
    }
}
