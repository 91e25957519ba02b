package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One filter or action as the platform's UI stores it, before it is compiled into an {@link EventFilterRule}.
 *
 * @param name            filter name, e.g. {@code filterByEventType}
 * @param effect          include or exclude
 * @param prefixCondition AND/OR with the previous filter
 * @param arguments       the filter's arguments; never null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ArgumentsInput(String name, Effect effect, PrefixCondition prefixCondition, List<Argument> arguments) {

    public ArgumentsInput {
        arguments = RecordValues.copy(arguments);
    }
}
