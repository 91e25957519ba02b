package io.changestream.alerts.filter;

import java.util.List;
import java.util.Optional;

/**
 * Where {@code matchAnyTag} finds the tags of an entity whose event carries none (a pipeline run status: the
 * {@code pipeline-status} record has no tags, so they come from the platform). Implementations bound their wait;
 * thread-safe.
 */
@FunctionalInterface
public interface EntityTags {

    /** No lookup: only the event's own entity is read. */
    EntityTags NONE = (entityType, fqn) -> Optional.empty();

    /** The tag FQNs of the entity, or empty when they cannot be known now. */
    Optional<List<String>> tags(String entityType, String fqn);
}
