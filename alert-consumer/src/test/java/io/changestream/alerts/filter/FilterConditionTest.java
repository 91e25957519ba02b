package io.changestream.alerts.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.ChangeEvent;
import org.junit.jupiter.api.Test;

class FilterConditionTest {

    private static boolean eval(String condition, ChangeEvent event) {
        return FilterCondition.compile(condition).test(event);
    }

    @Test
    void eventTypeSourceAndUpdaterMatchExactly() {
        ChangeEvent e = Events.tableUpdate("alice", "description");
        assertTrue(eval("matchAnyEventType({'entityCreated','entityUpdated'})", e));
        assertFalse(eval("matchAnyEventType({'entityDeleted'})", e));
        assertTrue(eval("matchAnyEventType('entityDeleted', 'entityUpdated')", e), "varargs form");
        assertTrue(eval("matchAnySource({'table'})", e));
        assertFalse(eval("matchAnySource({'topic'})", e));
        assertTrue(eval("matchUpdatedBy({'alice'})", e));
        assertFalse(eval("matchUpdatedBy({'bob'})", e));
    }

    @Test
    void fqnIsARegexSearch() {
        ChangeEvent e = Events.tableUpdate("alice");
        assertTrue(eval("matchAnyEntityFqn({'sales\\.orders'})", e));
        assertTrue(eval("matchAnyEntityFqn({'^svc\\.db'})", e));
        assertFalse(eval("matchAnyEntityFqn({'^db'})", e));
    }

    @Test
    void ownersDomainsAndIdAreReadFromTheEntity() {
        ChangeEvent e = Events.tableUpdate("alice");
        assertTrue(eval("matchAnyOwnerName({'data-eng'})", e));
        assertFalse(eval("matchAnyOwnerName({'bob'})", e));
        assertTrue(eval("matchAnyDomain({'Sales'})", e));
        assertFalse(eval("matchAnyDomain({'Finance'})", e));
        assertTrue(eval("matchAnyEntityId({'" + Events.TABLE_ID.toUpperCase() + "'})", e));
        assertFalse(eval("matchAnyEntityId({'00000000-0000-0000-0000-000000000000'})", e));
    }

    @Test
    void matchAnyTagReadsTheEntitysTagLabels() {
        ChangeEvent tagged = Events.event("entityUpdated", "table", "alice", """
                {"fullyQualifiedName":"svc.db.sales.orders",
                 "tags":[{"tagFQN":"Tier.Tier1","source":"Classification"},{"tagFQN":"PII.Sensitive"}]}
                """, null);
        assertTrue(eval("matchAnyTag({'tier.tier1'})", tagged), "case-insensitive");
        assertTrue(eval("matchAnyTag({'Tier.Tier2','PII.Sensitive'})", tagged));
        assertFalse(eval("matchAnyTag({'Tier.Tier2'})", tagged));
        assertFalse(eval("matchAnyTag({'Tier.Tier1'})", Events.tableUpdate("alice")), "no tags, no lookup");
        String compiled = FilterCatalog.byName("filterByTag").orElseThrow().condition();
        assertEquals("matchAnyTag(${tagList})", compiled);
    }

    @Test
    void aRunStatusIsMatchedByItsPipelinesTagsFromTheLookupAndCountsAsTaggedWhenThoseAreUnknown() {
        ChangeEvent run = io.changestream.alerts.destination.lineage.RunEvents.filterable(
                new io.changestream.topics.model.PipelineRunStatus("mysql_prod.ingest", "r1",
                        io.changestream.topics.model.PipelineState.FAILED, 1L, 2L, 3L));
        java.util.Map<String, java.util.Optional<java.util.List<String>>> known = new java.util.HashMap<>();
        EntityTags lookup = (type, fqn) -> "ingestionPipeline".equals(type)
                ? known.getOrDefault(fqn, java.util.Optional.empty()) : java.util.Optional.empty();
        FilterSettings settings = FilterSettings.DEFAULTS.withTags(lookup);
        FilterCondition critical = FilterCondition.compile("matchAnyTag({'Tier.Tier1'})", settings);
        known.put("mysql_prod.ingest", java.util.Optional.of(java.util.List.of("Tier.Tier1")));
        assertTrue(critical.test(run));
        known.put("mysql_prod.ingest", java.util.Optional.of(java.util.List.of("Tier.Tier3")));
        assertFalse(critical.test(run));
        known.remove("mysql_prod.ingest");
        assertTrue(critical.test(run), "the platform cannot say now: never drop a critical pipeline's failure");
        assertFalse(critical.test(Events.tableUpdate("alice")), "only a run's pipeline is looked up");
    }

    @Test
    void fieldChangeMatchesTopLevelAndNestedNames() {
        ChangeEvent e = Events.tableUpdate("alice", "columns.customer_id.description");
        assertTrue(eval("matchAnyFieldChange({'columns'})", e));
        assertTrue(eval("matchAnyFieldChange({'columns.customer_id.description'})", e));
        assertFalse(eval("matchAnyFieldChange({'tags'})", e));
    }

    @Test
    void botsAreRecognisedByName() {
        assertTrue(eval("isBot()", Events.tableUpdate("ingestion-bot")));
        assertFalse(eval("isBot()", Events.tableUpdate("alice")));
        assertTrue(eval("!isBot()", Events.tableUpdate("alice")));
    }

    @Test
    void statusFunctionsReadTheChangedStatus() {
        ChangeEvent test = Events.statusChange("testCase", "testCaseResult", "{\"testCaseStatus\":\"Failed\"}", true);
        assertTrue(eval("matchTestResult({'failed'})", test));
        assertFalse(eval("matchTestResult({'Success'})", test));
        ChangeEvent coded = Events.statusChange("testCase", "testCaseResult",
                "\"{\\\"testCaseStatus\\\":\\\"Aborted\\\"}\"", false);
        assertTrue(eval("matchTestResult({'Aborted'})", coded), "JSON-coded string value");
        ChangeEvent ingestion = Events.statusChange("ingestionPipeline", "pipelineStatus",
                "{\"pipelineState\":\"partialSuccess\"}", false);
        assertTrue(eval("matchIngestionPipelineState({'partialSuccess','failed'})", ingestion));
        assertFalse(eval("matchPipelineState({'partialSuccess'})", ingestion), "wrong entity type");
        ChangeEvent pipeline = Events.statusChange("pipeline", "pipelineStatus",
                "{\"executionStatus\":\"Failed\"}", false);
        assertTrue(eval("matchPipelineState({'Failed'})", pipeline));
        assertFalse(eval("matchTestResult({'Failed'})", pipeline), "not a test case");
    }

    @Test
    void andBindsTighterThanOrAndNotBindsTightest() {
        ChangeEvent e = Events.tableUpdate("alice");
        assertTrue(eval("matchUpdatedBy({'alice'}) || matchUpdatedBy({'x'}) && false", e));
        assertFalse(eval("(matchUpdatedBy({'alice'}) || matchUpdatedBy({'x'})) && false", e));
        assertFalse(eval("!matchUpdatedBy({'alice'}) && true", e));
        assertTrue(eval("not false and true or false", e), "SpEL word operators");
    }

    @Test
    void syntaxErrorsCarryThePosition() {
        FilterSyntaxException missing = assertThrows(FilterSyntaxException.class,
                () -> FilterCondition.compile("matchAnyEventType({'a'}"));
        assertEquals(23, missing.position());
        FilterSyntaxException single = assertThrows(FilterSyntaxException.class,
                () -> FilterCondition.compile("isBot() & isBot()"));
        assertEquals(8, single.position());
        FilterSyntaxException unterminated = assertThrows(FilterSyntaxException.class,
                () -> FilterCondition.compile("matchAnySource({'table})"));
        assertEquals(16, unterminated.position());
        assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile(""));
        assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile("isBot() isBot()"));
    }

    @Test
    void unknownFunctionsAndBadArgumentsAreRejectedAtCompileTime() {
        FilterSyntaxException unknown = assertThrows(FilterSyntaxException.class,
                () -> FilterCondition.compile("isBot() && T('java.lang.Runtime')"));
        assertEquals(11, unknown.position());
        assertTrue(unknown.getMessage().contains("unknown function 'T'"), unknown.getMessage());
        assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile("T(java.lang.Runtime).exec('x')"));
        assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile("isBot('x')"));
        assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile("matchAnySource()"));
        assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile("matchAnyEntityFqn({'['})"));
        assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile("matchAnyEntityId({'nope'})"));
    }

    @Test
    void depthIsBounded() {
        String deep = "!".repeat(200) + "true";
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile(deep));
        assertTrue(e.getMessage().contains("filter.maxDepth"), e.getMessage());
    }

    @Test
    void anEntityThatIsNotJsonIsATypedEvaluationError() {
        ChangeEvent broken = Events.event("entityUpdated", "table", "alice", "\"{not json\"", null);
        FilterCondition owner = FilterCondition.compile("matchAnyOwnerName({'alice'})");
        assertThrows(FilterEvaluationException.class, () -> owner.test(broken));
        assertTrue(FilterCondition.compile("matchUpdatedBy({'alice'})").test(broken), "functions that need no entity");
    }

    @Test
    void toStringParsesBackToTheSameTree() {
        String source = "!(matchAnyEventType({'a', 'it''s'}) || isBot()) && matchAnyOwnerName('x') || false";
        FilterCondition first = FilterCondition.compile(source);
        FilterCondition second = FilterCondition.compile(first.toString());
        assertEquals(first.expression(), second.expression());
    }

    @Test
    void threadEventsPassEntityFilters() {
        ChangeEvent thread = Events.event("threadCreated", "THREAD", "alice", "{\"type\":\"Conversation\"}", null);
        assertTrue(eval("matchAnySource({'table'})", thread));
        assertTrue(eval("matchAnyOwnerName({'nobody'})", thread));
        assertFalse(eval("matchAnyEventType({'entityCreated'})", thread));
    }
}
