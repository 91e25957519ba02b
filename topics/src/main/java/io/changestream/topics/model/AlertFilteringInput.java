package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The UI's filter input of a subscription (the platform's {@code input}). Lists are never null.
 *
 * @param filters filters
 * @param actions actions (triggers)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record AlertFilteringInput(List<ArgumentsInput> filters, List<ArgumentsInput> actions) {

    public AlertFilteringInput {
        filters = RecordValues.copy(filters);
        actions = RecordValues.copy(actions);
    }
}
