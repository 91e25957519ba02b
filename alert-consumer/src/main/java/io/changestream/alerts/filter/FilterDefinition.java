package io.changestream.alerts.filter;

import java.util.List;
import java.util.Objects;

/**
 * One filter or trigger the UI offers, as in the platform's alert catalogue: a condition template whose
 * {@code ${argument}} placeholders are replaced by {@code {'v1','v2'}} sets.
 *
 * @param name      the filter name, e.g. {@code filterByEventType}
 * @param condition the template, e.g. {@code matchAnyEventType(${eventTypeList})}
 * @param arguments the placeholder names, in order; empty when the condition is fixed
 */
public record FilterDefinition(String name, String condition, List<String> arguments) {

    public FilterDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(condition, "condition");
        arguments = List.copyOf(arguments);
    }

    /** The platform's {@code inputType}: {@code static} with arguments, {@code none} without. */
    public String inputType() {
        return arguments.isEmpty() ? "none" : "static";
    }
}
