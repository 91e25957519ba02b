package io.changestream.logs.source;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Picks the source of a run by where its bytes are: the storage root when it has the run's directory, otherwise
 * the pipeline service when one is configured, otherwise none. Thread-safe.
 */
public final class SourceResolver {

    private final Path storageRoot;
    private final URI serviceUrl;
    private final Duration serviceTimeout;
    private final String serviceToken;
    private final HttpClient http;

    /**
     * A resolver; either backend may be null (not configured).
     *
     * @param serviceToken bearer token for the pipeline service, or null
     */
    public SourceResolver(Path storageRoot, URI serviceUrl, Duration serviceTimeout, String serviceToken) {
        this.storageRoot = storageRoot;
        this.serviceUrl = serviceUrl;
        this.serviceTimeout = serviceTimeout;
        this.serviceToken = serviceToken;
        this.http = serviceUrl == null ? null : HttpClient.newBuilder().connectTimeout(serviceTimeout).build();
    }

    /** The source holding {@code fqn/runId}, if any backend can serve it. Names must be valid ({@link PathNames}). */
    public Optional<LogSource> resolve(String pipelineFqn, String runId) {
        if (storageRoot != null) {
            Path dir = StorageLogSource.runDir(storageRoot, pipelineFqn, runId);
            if (Files.isDirectory(dir)) {
                return Optional.of(new StorageLogSource(dir));
            }
        }
        if (serviceUrl != null) {
            return Optional.of(new PipelineServiceLogSource(http, serviceUrl, pipelineFqn, runId, serviceTimeout,
                    serviceToken));
        }
        return Optional.empty();
    }

    /** True when the storage root has a directory for the pipeline. */
    public boolean storageKnows(String pipelineFqn) {
        return storageRoot != null && PathNames.problem("fqn", pipelineFqn) == null
                && Files.isDirectory(storageRoot.resolve(pipelineFqn));
    }

    /** The newest run directory of the pipeline in storage (by modification time), if any. */
    public Optional<String> latestStoredRun(String pipelineFqn) {
        if (!storageKnows(pipelineFqn)) {
            return Optional.empty();
        }
        try (var runs = Files.list(storageRoot.resolve(pipelineFqn))) {
            return runs.filter(Files::isDirectory)
                    .max(java.util.Comparator.comparingLong(SourceResolver::modified))
                    .map(p -> p.getFileName().toString());
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (java.io.IOException e) {
            return 0;
        }
    }
}
