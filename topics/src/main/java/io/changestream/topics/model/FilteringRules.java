package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The compiled filters of a subscription (the platform's {@code filteringRules}). Lists are never null.
 *
 * @param resources entity types the subscription listens to ({@code all}, {@code table}, {@code ingestionPipeline}…)
 * @param rules     filter rules
 * @param actions   action (trigger) rules
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record FilteringRules(List<String> resources, List<EventFilterRule> rules, List<EventFilterRule> actions) {

    public FilteringRules {
        resources = RecordValues.copy(resources);
        rules = RecordValues.copy(rules);
        actions = RecordValues.copy(actions);
    }
}
