package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One named argument of a UI filter, e.g. {@code eventTypeList: [entityCreated, entityDeleted]}.
 *
 * @param name  argument name
 * @param input values; never null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Argument(String name, List<String> input) {

    public Argument {
        input = RecordValues.copy(input);
    }
}
