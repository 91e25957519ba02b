package io.changestream.alerts.filter;

import io.changestream.topics.model.AlertFilteringInput;
import io.changestream.topics.model.AlertType;
import io.changestream.topics.model.Argument;
import io.changestream.topics.model.ArgumentsInput;
import io.changestream.topics.model.Effect;
import io.changestream.topics.model.EventFilterRule;
import io.changestream.topics.model.FilteringRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Builds a subscription's {@code filteringRules} from its structured {@code input}, the way the platform's
 * {@code AlertUtil.validateAndBuildFilteringConditions} does: each filter's template gets its arguments as
 * {@code {'a','b'}} sets (quotes in values are doubled, which the platform forgets), the effect is copied, and
 * every built condition is compiled so that nothing invalid is stored. Notification alerts keep no actions, as on
 * the platform. Stateless; any thread.
 */
public final class FilterRulesBuilder {

    private final FilterSettings settings;

    public FilterRulesBuilder(FilterSettings settings) {
        this.settings = settings;
    }

    /**
     * The filtering rules of a subscription.
     *
     * @param resources entity types (or {@code all}); must not be empty
     * @param alertType the alert type
     * @param input     the structured input; null means no rules
     * @throws FilterInputException naming the offending field
     */
    public FilteringRules build(List<String> resources, AlertType alertType, AlertFilteringInput input) {
        if (resources == null || resources.isEmpty()) {
            throw new FilterInputException("resources", "at least one resource (an entity type or \"all\") is required");
        }
        for (int i = 0; i < resources.size(); i++) {
            String resource = resources.get(i);
            if (resource == null || resource.isBlank()) {
                throw new FilterInputException("resources[" + i + "]", "must not be blank");
            }
        }
        if (input == null) {
            return new FilteringRules(resources, List.of(), List.of());
        }
        List<EventFilterRule> rules = rules("input.filters", input.filters());
        List<EventFilterRule> actions = alertType == AlertType.NOTIFICATION
                ? List.of() : rules("input.actions", input.actions());
        return new FilteringRules(resources, rules, actions);
    }

    private List<EventFilterRule> rules(String field, List<ArgumentsInput> inputs) {
        List<EventFilterRule> out = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            out.add(rule(field + "[" + i + "]", inputs.get(i)));
        }
        return out;
    }

    private EventFilterRule rule(String field, ArgumentsInput input) {
        FilterDefinition definition = FilterCatalog.byName(input.name()).orElseThrow(() ->
                new FilterInputException(field + ".name", "unknown filter '" + input.name() + "'; known: "
                        + FilterCatalog.definitions().stream().map(FilterDefinition::name)
                        .collect(Collectors.joining(", "))));
        Map<String, List<String>> arguments = new HashMap<>();
        for (int i = 0; i < input.arguments().size(); i++) {
            Argument argument = input.arguments().get(i);
            if (argument.name() == null) {
                throw new FilterInputException(field + ".arguments[" + i + "].name", "is required");
            }
            arguments.put(argument.name(), argument.input());
        }
        String condition = definition.condition();
        for (String name : definition.arguments()) {
            List<String> values = arguments.get(name);
            if (values == null || values.isEmpty()) {
                throw new FilterInputException(field + ".arguments", "input for argument " + name + " is missing");
            }
            condition = condition.replace("${" + name + "}", "{" + values.stream().map(Expression::quote)
                    .collect(Collectors.joining(",")) + "}");
        }
        try {
            FilterCondition.compile(condition, settings);
        } catch (FilterSyntaxException e) {
            throw new FilterInputException(field + ".arguments", e);
        }
        Effect effect = input.effect() == null ? Effect.INCLUDE : input.effect();
        return new EventFilterRule(definition.name(), null, null, null, effect, condition,
                definition.arguments().isEmpty() ? null : definition.arguments(), definition.inputType(),
                input.prefixCondition());
    }
}
