package io.changestream.alerts.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.AlertFilteringInput;
import io.changestream.topics.model.AlertType;
import io.changestream.topics.model.Argument;
import io.changestream.topics.model.ArgumentsInput;
import io.changestream.topics.model.Effect;
import io.changestream.topics.model.EventFilterRule;
import io.changestream.topics.model.FilteringRules;
import io.changestream.topics.model.PrefixCondition;
import java.util.List;
import org.junit.jupiter.api.Test;

class FilterRulesBuilderTest {

    private final FilterRulesBuilder builder = new FilterRulesBuilder(FilterSettings.DEFAULTS);

    private static ArgumentsInput filter(String name, Effect effect, String argument, String... values) {
        return new ArgumentsInput(name, effect, null,
                argument == null ? List.of() : List.of(new Argument(argument, List.of(values))));
    }

    @Test
    void buildsThePlatformsConditions() {
        AlertFilteringInput input = new AlertFilteringInput(List.of(
                filter("filterByEventType", Effect.INCLUDE, "eventTypeList", "entityCreated", "entityUpdated"),
                filter("filterByUpdaterIsBot", Effect.EXCLUDE, null)), List.of());
        FilteringRules rules = builder.build(List.of("table"), AlertType.NOTIFICATION, input);

        assertEquals(List.of("table"), rules.resources());
        EventFilterRule first = rules.rules().get(0);
        assertEquals("filterByEventType", first.name());
        assertEquals("matchAnyEventType({'entityCreated','entityUpdated'})", first.condition());
        assertEquals(List.of("eventTypeList"), first.arguments());
        assertEquals("static", first.inputType());
        assertEquals(Effect.EXCLUDE, rules.rules().get(1).effect());
        assertEquals("isBot()", rules.rules().get(1).condition());
        assertEquals("none", rules.rules().get(1).inputType());
    }

    @Test
    void theStructuredFormCompilesToTheSameTreeAsTheWrittenCondition() {
        AlertFilteringInput input = new AlertFilteringInput(List.of(
                filter("filterByOwnerName", Effect.INCLUDE, "ownerNameList", "alice", "data-eng"),
                filter("filterByUpdaterIsBot", Effect.EXCLUDE, null)), List.of());
        SubscriptionFilter compiled = SubscriptionFilter.compile(
                builder.build(List.of("all"), AlertType.NOTIFICATION, input), FilterSettings.DEFAULTS);

        assertEquals(FilterCondition.compile("(matchAnyOwnerName({'alice','data-eng'})) && (!(isBot()))")
                .expression(), compiled.rules().expression());
        assertTrue(compiled.matches(Events.tableUpdate("carol")));
        assertFalse(compiled.matches(Events.tableUpdate("ingestion-bot")));
    }

    @Test
    void quotesInValuesAreEscaped() {
        AlertFilteringInput input = new AlertFilteringInput(List.of(
                filter("filterByUpdaterName", Effect.INCLUDE, "updateByUserList", "o'brien")), List.of());
        FilteringRules rules = builder.build(List.of("table"), AlertType.NOTIFICATION, input);
        assertEquals("matchUpdatedBy({'o''brien'})", rules.rules().get(0).condition());
        assertTrue(SubscriptionFilter.compile(rules, FilterSettings.DEFAULTS).matches(Events.tableUpdate("o'brien")));
    }

    @Test
    void notificationAlertsKeepNoActionsObservabilityAlertsDo() {
        ArgumentsInput trigger = filter("GetIngestionPipelineStatusUpdates", Effect.INCLUDE,
                "ingestionPipelineStateList", "failed");
        AlertFilteringInput input = new AlertFilteringInput(List.of(), List.of(trigger));
        assertTrue(builder.build(List.of("ingestionPipeline"), AlertType.NOTIFICATION, input).actions().isEmpty());
        assertEquals("matchIngestionPipelineState({'failed'})",
                builder.build(List.of("ingestionPipeline"), AlertType.OBSERVABILITY, input).actions().get(0)
                        .condition());
    }

    @Test
    void errorsNameTheField() {
        FilterInputException unknown = assertThrows(FilterInputException.class, () -> builder.build(List.of("table"),
                AlertType.NOTIFICATION, new AlertFilteringInput(List.of(
                        filter("filterByEventType", Effect.INCLUDE, "eventTypeList", "x"),
                        filter("filterByMagic", Effect.INCLUDE, null)), List.of())));
        assertEquals("input.filters[1].name", unknown.field());

        FilterInputException missing = assertThrows(FilterInputException.class, () -> builder.build(List.of("table"),
                AlertType.NOTIFICATION, new AlertFilteringInput(List.of(
                        filter("filterByEventType", Effect.INCLUDE, "wrongName", "x")), List.of())));
        assertEquals("input.filters[0].arguments", missing.field());

        FilterInputException badRegex = assertThrows(FilterInputException.class, () -> builder.build(
                List.of("table"), AlertType.NOTIFICATION, new AlertFilteringInput(List.of(
                        filter("filterByFqn", Effect.INCLUDE, "fqnList", "sales.(")), List.of())));
        assertEquals("input.filters[0].arguments", badRegex.field());

        assertEquals("resources", assertThrows(FilterInputException.class,
                () -> builder.build(List.of(), AlertType.NOTIFICATION, null)).field());
    }

    @Test
    void prefixConditionOrFollowsSpelPrecedence() {
        FilteringRules rules = new FilteringRules(List.of("all"), List.of(
                rule("matchUpdatedBy({'alice'})", Effect.INCLUDE, null),
                rule("matchUpdatedBy({'bob'})", Effect.INCLUDE, PrefixCondition.OR),
                rule("matchAnyEventType({'entityDeleted'})", Effect.INCLUDE, PrefixCondition.AND)), List.of());
        SubscriptionFilter filter = SubscriptionFilter.compile(rules, FilterSettings.DEFAULTS);
        assertTrue(filter.matches(Events.tableUpdate("alice")), "alice || (bob && deleted)");
        assertFalse(filter.matches(Events.tableUpdate("bob")));
    }

    @Test
    void resourcesRestrictEntityTypes() {
        FilteringRules topics = new FilteringRules(List.of("topic"), List.of(), List.of());
        assertFalse(SubscriptionFilter.compile(topics, FilterSettings.DEFAULTS).matches(Events.tableUpdate("a")));
        FilteringRules tables = new FilteringRules(List.of("table"), List.of(), List.of());
        assertTrue(SubscriptionFilter.compile(tables, FilterSettings.DEFAULTS).matches(Events.tableUpdate("a")));
    }

    @Test
    void aStoredRuleThatDoesNotCompileIsNamed() {
        FilteringRules rules = new FilteringRules(List.of("all"), List.of(
                rule("isBot()", Effect.INCLUDE, null), rule("matchAnySource({'a'", Effect.INCLUDE, null)), List.of());
        FilterInputException e = assertThrows(FilterInputException.class,
                () -> SubscriptionFilter.compile(rules, FilterSettings.DEFAULTS));
        assertEquals("filteringRules.rules[1].condition", e.field());
        assertTrue(e.getMessage().contains("position"), e.getMessage());
    }

    private static EventFilterRule rule(String condition, Effect effect, PrefixCondition prefix) {
        return new EventFilterRule("r", null, null, null, effect, condition, null, null, prefix);
    }
}
