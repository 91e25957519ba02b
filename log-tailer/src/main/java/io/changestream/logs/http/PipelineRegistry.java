package io.changestream.logs.http;

import io.changestream.logs.engine.RunStateView;
import io.changestream.logs.source.SourceResolver;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which pipelines exist (and so 404): a pipeline is known when it is configured (by FQN or id), has a
 * storage directory, or has a record on {@code pipeline-status}. Resolves an id to its FQN. Thread-safe.
 */
public final class PipelineRegistry {

    private final Map<String, String> idsToFqn;
    private final Set<String> configured;
    private final SourceResolver storage;
    private final RunStateView states;

    /** A registry over the configured pipelines, the storage and the status view. */
    public PipelineRegistry(Map<String, String> idsToFqn, Set<String> configured, SourceResolver storage,
                            RunStateView states) {
        this.idsToFqn = Map.copyOf(idsToFqn);
        this.configured = Set.copyOf(configured);
        this.storage = storage;
        this.states = states;
    }

    /** The FQN of {@code fqnOrId} when the pipeline is known. */
    public Optional<String> resolve(String fqnOrId) {
        String fqn = idsToFqn.getOrDefault(fqnOrId, fqnOrId);
        if (configured.contains(fqn) || idsToFqn.containsKey(fqnOrId) || storage.storageKnows(fqn)) {
            return Optional.of(fqn);
        }
        try {
            return states.knowsPipeline(fqn) ? Optional.of(fqn) : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The newest run of a pipeline: from the status view, else the newest storage directory. */
    public Optional<String> latestRun(String fqn) {
        Optional<String> run;
        try {
            run = states.latestRun(fqn);
        } catch (RuntimeException e) {
            run = Optional.empty();
        }
        return run.isPresent() ? run : storage.latestStoredRun(fqn);
    }
}
