package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a filter combines with the previous ones. */
public enum PrefixCondition {
    /** Both must hold. */
    @JsonProperty("AND") AND,
    /** Either may hold. */
    @JsonProperty("OR") OR
}
