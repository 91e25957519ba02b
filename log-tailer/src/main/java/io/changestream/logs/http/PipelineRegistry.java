package io.changestream.logs.http;

import io.changestream.logs.engine.RunStateView;
import io.changestream.logs.source.PathNames;
import io.changestream.logs.source.SourceResolver;
import io.changestream.logs.source.SourceResolver.RunRef;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * The newest run of a pipeline: from the status view when its id is a safe name ({@link PathNames}; the status
     * topic is written by others and may hold anything), else the newest stored run.
     */
    public Optional<String> latestRun(String fqn) {
        Optional<String> run = statusLatest(fqn);
        return run.isPresent() ? run : storage.latestStoredRun(fqn);
    }

    /**
     * Up to {@code limit} recent runs, newest first: the stored runs (storage, object storage) and the status view's
     * newest run when no backend lists it (first: it is the newest the platform knows).
     */
    public List<RunRef> recentRuns(String fqn, int limit) {
        List<RunRef> stored = storage.recentRuns(fqn, limit);
        Optional<String> latest = statusLatest(fqn);
        if (latest.isEmpty() || stored.stream().anyMatch(r -> r.runId().equals(latest.get()))) {
            return stored;
        }
        List<RunRef> all = new ArrayList<>();
        all.add(new RunRef(latest.get(), null, "status"));
        all.addAll(stored);
        return List.copyOf(all.subList(0, Math.min(limit, all.size())));
    }

    private Optional<String> statusLatest(String fqn) {
        try {
            return states.latestRun(fqn).filter(run -> PathNames.problem("run id", run) == null);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
