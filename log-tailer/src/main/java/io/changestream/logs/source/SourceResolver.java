package io.changestream.logs.source;

import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Picks the source of a run by where its bytes are, in this order: the storage root when it has the run's
 * directory; object storage when the run's {@code logs.txt} exists (a closed run), or its {@code partial.txt} (a live
 * run: read until it is gone, then {@code logs.txt} at the same offset); the Airflow plugin when configured; object storage when
 * configured (the run has not flushed yet: the stream waits for the object); otherwise none. Lists a pipeline's
 * recent runs from storage and object storage. Owns the S3 client ({@link #close()}; the Airflow HTTP client needs no closing on Java 17). Thread-safe.
 */
public final class SourceResolver implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SourceResolver.class);
    private static final int MAX_LISTED_KEYS = 1000;

    /**
     * One run of a pipeline as a backend knows it.
     *
     * @param live true when the backend shows the run as still being written (object storage: only its
     *             {@code partial.txt} exists); false when closed or not known
     */
    public record RunRef(String runId, Instant modified, String source, boolean live) {

        /** A run not known to be live. */
        public RunRef(String runId, Instant modified, String source) {
            this(runId, modified, source, false);
        }
    }

    private final Path storageRoot;
    private final ObjectStoreSettings objectStore;
    private final AirflowSettings airflow;
    private final S3Client s3;
    private final HttpClient http;
    private final ReadGate s3Gate;
    private final ReadGate airflowGate;

    /** A resolver with the default read limits; any backend may be null (not configured). */
    public SourceResolver(Path storageRoot, ObjectStoreSettings objectStore, AirflowSettings airflow) {
        this(storageRoot, objectStore, airflow, ReadLimits.s3Defaults(), ReadLimits.airflowDefaults());
    }

    /**
     * A resolver; any backend may be null (not configured). Every source of a backend shares its {@link ReadGate}:
     * {@code s3Limits} and {@code airflowLimits} bound the reads of all of them together.
     */
    public SourceResolver(Path storageRoot, ObjectStoreSettings objectStore, AirflowSettings airflow,
                          ReadLimits s3Limits, ReadLimits airflowLimits) {
        this.s3Gate = new ReadGate(s3Limits);
        this.airflowGate = new ReadGate(airflowLimits);
        this.storageRoot = storageRoot;
        this.objectStore = objectStore;
        this.airflow = airflow;
        this.s3 = objectStore == null ? null : client(objectStore);
        this.http = airflow == null ? null : HttpClient.newBuilder().connectTimeout(airflow.timeout())
                .version(HttpClient.Version.HTTP_1_1).build();
    }

    /** The S3 client for these settings: static or default-chain credentials, one timeout per call. */
    static S3Client client(ObjectStoreSettings settings) {
        AwsCredentialsProvider credentials = settings.accessKeyId() == null
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKeyId(),
                        settings.secretAccessKey()));
        S3ClientBuilder builder = S3Client.builder()
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(settings.pathStyle())
                // S3-compatible servers differ in the newer flexible checksums; ranged GETs are not validated anyway
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(c -> c.apiCallTimeout(settings.timeout())
                        .apiCallAttemptTimeout(settings.timeout()));
        if (settings.endpoint() != null) {
            builder.endpointOverride(settings.endpoint());
        }
        return builder.build();
    }

    /** The source holding {@code fqn/runId}, if any backend can serve it. Names must be valid ({@link PathNames}). */
    public Optional<LogSource> resolve(String pipelineFqn, String runId) {
        if (storageRoot != null) {
            Path dir = StorageLogSource.runDir(storageRoot, pipelineFqn, runId);
            if (Files.isDirectory(dir)) {
                return Optional.of(new StorageLogSource(dir));
            }
        }
        if (s3 != null && objectExists(objectStore.key(pipelineFqn, runId))) {
            return Optional.of(ObjectStoreLogSource.closed(s3, objectStore, s3Gate, pipelineFqn, runId));
        }
        if (s3 != null && objectExists(objectStore.liveKey(pipelineFqn, runId))) {
            return Optional.of(new ObjectStoreLogSource(s3, objectStore, s3Gate, pipelineFqn, runId));
        }
        if (airflow != null) {
            return Optional.of(new AirflowLogSource(http, airflow, airflowGate, pipelineFqn));
        }
        if (s3 != null) {
            return Optional.of(new ObjectStoreLogSource(s3, objectStore, s3Gate, pipelineFqn, runId));
        }
        return Optional.empty();
    }

    /** True when storage or object storage has anything of the pipeline. */
    public boolean storageKnows(String pipelineFqn) {
        if (PathNames.problem("fqn", pipelineFqn) != null) {
            return false;
        }
        if (storageRoot != null && Files.isDirectory(storageRoot.resolve(pipelineFqn))) {
            return true;
        }
        return s3 != null && !listObjects(pipelineFqn, 1).isEmpty();
    }

    /** The newest stored run of the pipeline (storage or object storage, by modification time), if any. */
    public Optional<String> latestStoredRun(String pipelineFqn) {
        return recentRuns(pipelineFqn, 1).stream().findFirst().map(RunRef::runId);
    }

    /** Up to {@code limit} runs of the pipeline found in storage and object storage, newest first. */
    public List<RunRef> recentRuns(String pipelineFqn, int limit) {
        if (PathNames.problem("fqn", pipelineFqn) != null) {
            return List.of();
        }
        Map<String, RunRef> runs = new LinkedHashMap<>();
        if (storageRoot != null && Files.isDirectory(storageRoot.resolve(pipelineFqn))) {
            try (Stream<Path> dirs = Files.list(storageRoot.resolve(pipelineFqn))) {
                dirs.filter(Files::isDirectory).forEach(d -> runs.put(d.getFileName().toString(),
                        new RunRef(d.getFileName().toString(), modified(d), "storage")));
            } catch (IOException e) {
                LOG.debug("listing runs of {} in storage: {}", pipelineFqn, e.toString());
            }
        }
        if (s3 != null) {
            String prefix = objectStore.runsPrefix(pipelineFqn);
            for (S3Object object : listObjects(pipelineFqn, MAX_LISTED_KEYS)) {
                String rest = object.key().substring(prefix.length());
                int slash = rest.indexOf('/');
                String name = slash > 0 ? rest.substring(slash + 1) : "";
                boolean closed = name.equals(ObjectStoreSettings.FINAL_OBJECT);
                if (closed || name.equals(ObjectStoreSettings.LIVE_OBJECT)) {
                    String run = rest.substring(0, slash);
                    // a run with logs.txt is closed, whatever partial.txt is left beside it
                    runs.merge(run, new RunRef(run, object.lastModified(), "s3", !closed), (a, b) -> new RunRef(run,
                            a.modified().isAfter(b.modified()) ? a.modified() : b.modified(), "s3",
                            a.live() && b.live()));
                }
            }
        }
        List<RunRef> sorted = new ArrayList<>(runs.values());
        sorted.sort(Comparator.comparing(RunRef::modified).reversed().thenComparing(RunRef::runId));
        return List.copyOf(sorted.subList(0, Math.min(limit, sorted.size())));
    }

    @Override
    public void close() {
        if (s3 != null) {
            s3.close();
        }
    }

    private boolean objectExists(String key) {
        try {
            s3.headObject(b -> b.bucket(objectStore.bucket()).key(key));
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        } catch (S3Exception e) {
            // 404 on HEAD has no body, so the SDK may not type it; 403 and the rest: let the read report it
            return e.statusCode() != 404;
        } catch (SdkException e) {
            LOG.debug("object store not reachable for {}: {}", key, e.toString());
            return true;
        }
    }

    private List<S3Object> listObjects(String pipelineFqn, int max) {
        try {
            return s3.listObjectsV2(b -> b.bucket(objectStore.bucket()).prefix(objectStore.runsPrefix(pipelineFqn))
                    .maxKeys(max)).contents();
        } catch (SdkException e) {
            LOG.debug("listing {} in the object store: {}", pipelineFqn, e.toString());
            return List.of();
        }
    }

    private static Instant modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toInstant();
        } catch (IOException e) {
            return Instant.EPOCH;
        }
    }
}
