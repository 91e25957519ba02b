package io.changestream.topics.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.Samples;
import io.changestream.topics.serde.Serdes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON shape of the records matches the platform's. */
class ModelJsonTest {

    @Test
    void createdEventKeepsEntityAndSourcePosition() {
        ChangeEvent event = Serdes.changeEvent().fromJson(Samples.text("change-event-entity-created.json"));
        assertEquals(ChangeEvent.ENTITY_CREATED, event.eventType());
        assertEquals("orders", event.entity().get("name").asText());
        assertEquals(2, event.entity().get("columns").size());
        assertEquals(List.of("b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e"), event.domains());
        assertEquals(48213L, event.source().sourceOffset());
        assertEquals("mysql-bin.000042:91834", event.source().logPosition());
        assertNull(event.changeDescription());
    }

    @Test
    void updatedEventKeepsJsonEncodedValuesAsStrings() {
        ChangeEvent event = Samples.updatedEvent();
        ChangeDescription change = event.changeDescription();
        FieldChange tags = change.fieldsAdded().get(0);
        assertEquals("columns.customer_email.tags", tags.name());
        assertTrue(tags.newValue().isTextual(), "the platform's JSON-coded string stays a string");
        assertNull(tags.oldValue());
        assertEquals("description", change.fieldsUpdated().get(0).name());
        assertEquals(3, change.allChanges().size() + 1, "fieldsDeleted is empty");
        assertEquals("governance-bot", event.impersonatedBy());
        assertTrue(event.additionalProperties().containsKey("incrementalChangeDescription"));
        assertTrue(change.additionalProperties().containsKey("changeSummary"));
    }

    @Test
    void softDeletedEventKeepsBooleanValuesAndStringEntity() {
        ChangeEvent event = Serdes.changeEvent().fromJson(Samples.text("change-event-entity-soft-deleted.json"));
        FieldChange deleted = event.changeDescription().fieldsUpdated().get(0);
        assertTrue(deleted.oldValue().isBoolean());
        assertTrue(deleted.newValue().booleanValue());
        assertTrue(event.entity().isTextual(), "entity given as a JSON-coded string stays a string");
        assertEquals("superset_prod.\"Sales Overview\"", event.entityFullyQualifiedName());
    }

    @Test
    void withSourceKeepsEverythingElse() {
        ChangeEvent event = Samples.updatedEvent();
        SourcePosition position = new SourcePosition("public.change_event", 9L, "0/1", 1L, 2L);
        ChangeEvent located = event.withSource(position);
        assertEquals(position, located.source());
        assertEquals(event, located.withSource(null));
    }

    @Test
    void pipelineStatesUseThePlatformStrings() {
        PipelineRunStatus status = Serdes.pipelineRunStatus().fromJson(Samples.text("pipeline-run-status.json"));
        assertEquals(PipelineState.PARTIAL_SUCCESS, status.state());
        for (PipelineState state : PipelineState.values()) {
            String json = Serdes.pipelineRunStatus().toJson(new PipelineRunStatus("p", "r", state, null, null, 1L));
            String expected = switch (state) {
                case QUEUED -> "queued";
                case RUNNING -> "running";
                case SUCCESS -> "success";
                case FAILED -> "failed";
                case PARTIAL_SUCCESS -> "partialSuccess";
                case STOPPED -> "stopped";
            };
            assertTrue(json.contains("\"state\":\"" + expected + "\""), json);
        }
        assertFalse(PipelineState.QUEUED.isTerminal());
        assertFalse(PipelineState.RUNNING.isTerminal());
        assertTrue(PipelineState.SUCCESS.isTerminal());
        assertTrue(PipelineState.FAILED.isTerminal());
        assertTrue(PipelineState.PARTIAL_SUCCESS.isTerminal());
        assertTrue(PipelineState.STOPPED.isTerminal());
    }

    @Test
    void logStreamEventsWriteOnlyTheirFields() {
        assertEquals("{\"eventType\":\"logs\",\"runId\":\"r\",\"logs\":\"line\\n\",\"after\":\"chunk:5\"}",
                Serdes.logStreamEvent().toJson(LogStreamEvent.logs("r", "line\n", "chunk:5", false, false)));
        assertEquals("{\"eventType\":\"logs\",\"runId\":\"r\",\"logs\":\"x\",\"after\":\"9\",\"replay\":true,"
                        + "\"truncated\":true}",
                Serdes.logStreamEvent().toJson(LogStreamEvent.logs("r", "x", "9", true, true)));
        assertEquals("{\"eventType\":\"complete\",\"runId\":\"r\",\"after\":\"9\",\"reason\":\"idleTimeout\"}",
                Serdes.logStreamEvent().toJson(
                        LogStreamEvent.complete("r", "9", LogStreamEvent.EndReason.IDLE_TIMEOUT)));
        assertEquals("{\"eventType\":\"error\",\"runId\":\"r\",\"message\":\"viewer limit reached\"}",
                Serdes.logStreamEvent().toJson(LogStreamEvent.error("r", "viewer limit reached")));
        for (LogStreamEvent.EndReason reason : LogStreamEvent.EndReason.values()) {
            String json = Serdes.logStreamEvent().toJson(LogStreamEvent.complete("r", null, reason));
            assertEquals(reason, Serdes.logStreamEvent().fromJson(json).reason());
        }
    }

    @Test
    void subscriptionFromTheUiIsReadCompletely() {
        EventSubscription s = Serdes.eventSubscription().fromJson(Samples.text("event-subscription-ui.json"));
        assertEquals(AlertType.NOTIFICATION, s.alertType());
        assertEquals(TriggerType.REAL_TIME, s.trigger().triggerType());
        assertEquals(List.of("table"), s.filteringRules().resources());
        assertEquals(3, s.filteringRules().rules().size());
        EventFilterRule bot = s.filteringRules().rules().get(2);
        assertEquals(Effect.EXCLUDE, bot.effect());
        assertEquals("isBot()", bot.condition());
        assertEquals(PrefixCondition.AND, bot.prefixCondition());
        assertEquals("matchAnyFieldChange({'columns','dataModel','joins'})",
                s.filteringRules().actions().get(0).condition());
        Argument eventTypes = s.input().filters().get(1).arguments().get(0);
        assertEquals("eventTypeList", eventTypes.name());
        assertEquals(List.of("entityUpdated", "entitySoftDeleted"), eventTypes.input());
        assertEquals(3, s.destinations().size());
        SubscriptionDestination webhook = s.destinations().get(0);
        assertEquals(SubscriptionCategory.EXTERNAL, webhook.category());
        assertEquals(SubscriptionType.WEBHOOK, webhook.type());
        assertEquals("https://hooks.example.com/openmetadata", webhook.config().get("endpoint").asText());
        assertEquals(SubscriptionType.SLACK, s.destinations().get(1).type());
        assertEquals(SubscriptionCategory.OWNERS, s.destinations().get(2).category());
        assertEquals(2, s.activeDestinations().size(), "the e-mail destination is disabled");
        assertEquals(3, s.retries());
        assertEquals("alice", s.owners().get(0).get("name").asText());
    }

    @Test
    void subscriptionDefaultsApplyWhenFieldsAreAbsent() {
        EventSubscription s = Serdes.eventSubscription().fromJson(
                "{\"id\":\"s\",\"name\":\"n\",\"destinations\":[{\"category\":\"External\",\"type\":\"Generic\"}]}");
        assertEquals(AlertType.NOTIFICATION, s.alertType());
        assertEquals(TriggerConfig.REAL_TIME, s.trigger());
        assertTrue(s.enabled());
        assertEquals(100, s.batchSize());
        assertEquals(3, s.retries());
        assertEquals(10, s.pollInterval());
        SubscriptionDestination d = s.destinations().get(0);
        assertEquals(SubscriptionType.GENERIC, d.type());
        assertEquals(10, d.timeout());
        assertEquals(12, d.readTimeout());
        assertTrue(d.enabled());
        assertEquals(ScheduleInfo.WEEKLY,
                new TriggerConfig(TriggerType.SCHEDULED, null, null).scheduleInfo());
        EventSubscription disabled = EventSubscription.builder("s", "n").enabled(false)
                .destinations(List.of(d)).build();
        assertTrue(disabled.activeDestinations().isEmpty());
    }

    @Test
    void everySubscriptionEnumRoundTripsItsPlatformString() {
        for (SubscriptionType type : SubscriptionType.values()) {
            for (SubscriptionCategory category : SubscriptionCategory.values()) {
                var subscription = EventSubscription.builder("s", "n")
                        .destinations(List.of(new SubscriptionDestination("d", category, type, null))).build();
                var again = Serdes.eventSubscription().fromJson(Serdes.eventSubscription().toJson(subscription));
                assertEquals(subscription, again);
            }
        }
        for (AlertType alertType : AlertType.values()) {
            var subscription = EventSubscription.builder("s", "n").alertType(alertType).build();
            assertEquals(alertType,
                    Serdes.eventSubscription().fromJson(Serdes.eventSubscription().toJson(subscription)).alertType());
        }
        assertTrue(Serdes.eventSubscription().toJson(EventSubscription.builder("s", "n").build())
                .contains("\"alertType\":\"Notification\""));
    }

    @Test
    void requiredFieldsAreCheckedInCode() {
        var e = assertThrows(NullPointerException.class, () -> new ChangeEvent(null, "entityCreated", "table", "t",
                null, null, null, null, null, null, 1L, null, null, null));
        assertTrue(e.getMessage().contains("ChangeEvent.id"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ChangeEvent("e", " ", "table", "t",
                null, null, null, null, null, null, 1L, null, null, null));
        assertThrows(IllegalArgumentException.class, () -> new DeliveryRecord("g", "s", "e", null,
                DeliveryRecord.DELIVERED, -1, 0L, null, 0, 0L));
        assertThrows(NullPointerException.class, () -> LogStreamEvent.error("r", null));
    }
}
