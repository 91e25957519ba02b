package io.changestream.alerts.filter;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.Effect;
import io.changestream.topics.model.EventFilterRule;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FilteringRules;
import io.changestream.topics.model.PrefixCondition;
import java.util.List;
import java.util.Set;

/**
 * A subscription's {@code filteringRules}, compiled: which events it wants. Same semantics as the platform's
 * {@code AlertUtil.checkIfChangeEventIsAllowed}: the resource check, then the rules, then the actions; rules are
 * joined as {@code (c1) && (!(c2)) || (c3)} following each rule's effect and {@code prefixCondition} (default AND),
 * with {@code &&} binding tighter than {@code ||}. Immutable; any thread.
 */
public final class SubscriptionFilter {

    private static final Set<String> THREAD_RESOURCES = Set.of("announcement", "task", "conversation");

    private final List<String> resources;
    private final FilterCondition rules;
    private final FilterCondition actions;

    private SubscriptionFilter(List<String> resources, FilterCondition rules, FilterCondition actions) {
        this.resources = resources;
        this.rules = rules;
        this.actions = actions;
    }

    /** Compiles a subscription's filtering rules; a subscription without them matches every event. */
    public static SubscriptionFilter compile(EventSubscription subscription, FilterSettings settings) {
        return compile(subscription.filteringRules(), settings);
    }

    /**
     * Compiles filtering rules.
     *
     * @throws FilterInputException naming the rule ({@code filteringRules.rules[2].condition}) that does not compile
     */
    public static SubscriptionFilter compile(FilteringRules filteringRules, FilterSettings settings) {
        if (filteringRules == null) {
            return new SubscriptionFilter(List.of("all"), null, null);
        }
        return new SubscriptionFilter(filteringRules.resources(),
                join("filteringRules.rules", filteringRules.rules(), settings),
                join("filteringRules.actions", filteringRules.actions(), settings));
    }

    /**
     * Whether the subscription wants this event.
     *
     * @throws FilterEvaluationException when a rule cannot be evaluated on it
     */
    public boolean matches(ChangeEvent event) {
        return resourceMatches(event)
                && (rules == null || rules.test(event))
                && (actions == null || actions.test(event));
    }

    /**
     * The size of what evaluating this filter runs, the unit of {@code quota.filterProgram}: one per operator, call
     * and argument of the complete rules and actions, plus the compiled RE2/J program of every
     * {@code matchAnyEntityFqn} pattern (each already bounded by {@code filter.maxPatternProgram}).
     */
    public long programSize() {
        return size(rules == null ? null : rules.expression()) + size(actions == null ? null : actions.expression());
    }

    private static long size(Expression e) {
        if (e instanceof Expression.Not n) {
            return 1 + size(n.operand());
        }
        if (e instanceof Expression.And a) {
            return 1 + size(a.left()) + size(a.right());
        }
        if (e instanceof Expression.Or o) {
            return 1 + size(o.left()) + size(o.right());
        }
        if (e instanceof Expression.Call c) {
            long out = 1 + c.values().size();
            if (c.function() == FilterFunction.MATCH_ANY_ENTITY_FQN) {
                for (String pattern : c.values()) {
                    out += PatternCache.get(pattern).programSize();
                }
            }
            return out;
        }
        return e == null ? 0 : 1; // a literal
    }

    /** The complete rules condition, or null when there are no rules. */
    public FilterCondition rules() {
        return rules;
    }

    /** The complete actions condition, or null when there are none. */
    public FilterCondition actions() {
        return actions;
    }

    private boolean resourceMatches(ChangeEvent event) {
        if (resources.isEmpty() || (resources.size() == 1 && "all".equals(resources.get(0)))) {
            return true;
        }
        String first = resources.get(0);
        if (EventFacts.THREAD.equals(event.entityType()) && THREAD_RESOURCES.contains(first)) {
            JsonNode thread = EventFacts.readValue(event.entity(), "entity");
            return first.equalsIgnoreCase(EventFacts.text(thread, "type"));
        }
        if ("testSuite".equals(first)) {
            return "testSuite".equals(event.entityType()) || "testCase".equals(event.entityType());
        }
        return resources.contains(event.entityType());
    }

    private static FilterCondition join(String field, List<EventFilterRule> rules, FilterSettings settings) {
        if (rules.isEmpty()) {
            return null;
        }
        StringBuilder complete = new StringBuilder();
        for (int i = 0; i < rules.size(); i++) {
            EventFilterRule rule = rules.get(i);
            String ruleField = field + "[" + i + "].condition";
            try {
                FilterCondition.compile(rule.condition(), settings);
            } catch (FilterSyntaxException e) {
                throw new FilterInputException(ruleField, e);
            }
            if (i > 0) {
                complete.append(rule.prefixCondition() == PrefixCondition.OR ? " || " : " && ");
            }
            complete.append(rule.effect() == Effect.EXCLUDE ? "(!(" + rule.condition() + "))" : "(" + rule.condition() + ")");
        }
        try {
            return FilterCondition.compile(complete.toString(), settings);
        } catch (FilterSyntaxException e) {
            throw new FilterInputException(field, e);
        }
    }
}
