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
