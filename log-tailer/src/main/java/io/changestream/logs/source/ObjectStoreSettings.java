package io.changestream.logs.source;

import java.net.URI;
import java.time.Duration;

/**
 * Where the platform keeps run logs in object storage (S3 and compatibles) and how to reach it. The layout is the
 * platform's ({@code S3LogStorage} of openmetadata-service):
 * {@code <bucket>/<prefix>/<fqn with every character outside [a-zA-Z0-9_-] as '_'>/<runId>/logs.txt}, prefix
 * {@code pipeline-logs} by default; while a run is live its log is flushed to {@code partial.txt} beside it, and
 * {@code logs.txt} is written (then {@code partial.txt} removed) when it closes. Immutable; validated in the constructor naming the setting;
 * {@link #toString()} masks the secret key.
 *
 * @param endpoint        {@code s3.endpoint}: an S3-compatible endpoint (MinIO, Ceph…); none = AWS for the region
 * @param region          {@code s3.region} (us-east-1)
 * @param bucket          {@code s3.bucket}: the bucket (required to enable the backend)
 * @param prefix          {@code s3.prefix} (pipeline-logs): key prefix, as the platform's {@code prefix}
 * @param pathStyle       {@code s3.pathStyle} (false; the platform forces it with a custom endpoint)
 * @param accessKeyId     {@code s3.accessKeyId}: static credentials with {@code s3.secretAccessKey}; none = the
 *                        SDK's default chain (environment, profile, container or instance role)
 * @param secretAccessKey {@code s3.secretAccessKey} (secret)
 * @param timeout         {@code s3.timeoutMillis} (5000): one call's whole time, retries included
 */
public record ObjectStoreSettings(URI endpoint, String region, String bucket, String prefix, boolean pathStyle,
                                  String accessKeyId, String secretAccessKey, Duration timeout) {

    public ObjectStoreSettings {
        if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
            throw new IllegalArgumentException("s3.bucket must be a bucket name (3-63 of a-z 0-9 . -), was "
                    + bucket);
        }
        if (region == null || region.isBlank()) {
            throw new IllegalArgumentException("s3.region must not be blank");
        }
        if (endpoint != null && !"http".equals(endpoint.getScheme()) && !"https".equals(endpoint.getScheme())) {
            throw new IllegalArgumentException("s3.endpoint must be an http(s) URL, was " + endpoint);
        }
        prefix = prefix == null ? "" : prefix.replaceAll("/+$", "");
        if ((accessKeyId == null) != (secretAccessKey == null)) {
            throw new IllegalArgumentException("s3.accessKeyId and s3.secretAccessKey go together");
        }
        if (timeout == null || timeout.toMillis() <= 0) {
            throw new IllegalArgumentException("s3.timeoutMillis must be > 0");
        }
    }

    /** Name of the object a closed run's log is in. */
    public static final String FINAL_OBJECT = "logs.txt";
    /** Name of the object a live run's log is flushed to until it closes. */
    public static final String LIVE_OBJECT = "partial.txt";

    /** The key of a closed run's log: the platform's {@code buildS3Key}. */
    public String key(String pipelineFqn, String runId) {
        return runsPrefix(pipelineFqn) + runId + "/" + FINAL_OBJECT;
    }

    /** The key a live run's log is flushed to ({@code partial.txt}), removed once {@link #key} is written. */
    public String liveKey(String pipelineFqn, String runId) {
        return runsPrefix(pipelineFqn) + runId + "/" + LIVE_OBJECT;
    }

    /** The key prefix under which a pipeline's runs are, ending in {@code /}. */
    public String runsPrefix(String pipelineFqn) {
        return prefix + "/" + pipelineFqn.replaceAll("[^a-zA-Z0-9_-]", "_") + "/";
    }

    /** Secrets masked. */
    @Override
    public String toString() {
        return "ObjectStoreSettings[endpoint=" + endpoint + ", region=" + region + ", bucket=" + bucket + ", prefix="
                + prefix + ", pathStyle=" + pathStyle + ", accessKeyId=" + accessKeyId + ", secretAccessKey="
                + (secretAccessKey == null ? null : "******") + ", timeout=" + timeout + "]";
    }
}
