package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One compiled filter rule of a subscription (the platform's {@code eventFilterRule.json}): a SpEL
 * {@code condition} such as {@code matchAnyEventType({'entityCreated'})} with an {@code effect}.
 *
 * @param name               rule name, e.g. {@code filterByEventType}
 * @param displayName        display name
 * @param fullyQualifiedName {@code subscription.rule}
 * @param description        description
 * @param effect             include or exclude
 * @param condition          the SpEL condition; the alert-consumer evaluates it
 * @param arguments          argument names the condition takes
 * @param inputType          the platform's {@code inputType} ({@code static}, {@code runtime}, {@code none})
 * @param prefixCondition    AND/OR with the previous rule
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record EventFilterRule(
        String name,
        String displayName,
        String fullyQualifiedName,
        String description,
        Effect effect,
        String condition,
        List<String> arguments,
        String inputType,
        PrefixCondition prefixCondition) {

    public EventFilterRule {
        arguments = RecordValues.copyOrNull(arguments);
    }
}
