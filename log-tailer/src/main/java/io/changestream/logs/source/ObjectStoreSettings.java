package io.changestream.logs.source;

import io.changestream.settings.ConfigText;
import io.changestream.settings.Setting;
import io.changestream.settings.SettingsReader;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Where the platform keeps run logs in object storage (S3 and compatibles) and how to reach it. The layout is the
 * platform's ({@code S3LogStorage} of openmetadata-service):
 * {@code <bucket>/<prefix>/<fqn with every character outside [a-zA-Z0-9_-] as '_'>/<runId>/logs.txt}, prefix
 * {@code pipeline-logs} by default; while a run is live its log is flushed to {@code partial.txt} beside it, and
 * {@code logs.txt} is written (then {@code partial.txt} removed) when it closes. Each {@code s3.*} setting is
 * declared once ({@link #SETTINGS}). Immutable; validated in the constructor naming the setting; {@link #toString()}
 * masks the secret key.
 *
 * @param endpoint        {@link #ENDPOINT}: an S3-compatible endpoint (MinIO, Ceph…); none = AWS for the region
 * @param region          {@link #REGION}
 * @param bucket          {@link #BUCKET}: the bucket (required to enable the backend)
 * @param prefix          {@link #PREFIX}: key prefix, as the platform's {@code prefix}
 * @param pathStyle       {@link #PATH_STYLE} (the platform forces it with a custom endpoint)
 * @param accessKeyId     {@link #ACCESS_KEY_ID}: static credentials with {@code s3.secretAccessKey}; none = the
 *                        SDK's default chain (environment, profile, container or instance role)
 * @param secretAccessKey {@link #SECRET_ACCESS_KEY} (secret)
 * @param timeout         {@link #TIMEOUT}: one call's whole time, retries included
 */
public record ObjectStoreSettings(URI endpoint, String region, String bucket, String prefix, boolean pathStyle,
                                  String accessKeyId, String secretAccessKey, Duration timeout) {

    public static final Setting<String> BUCKET = Setting.string("s3.bucket")
            .check(b -> b.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]"), "must be a bucket name (3-63 of a-z 0-9 . -)")
            .doc("object-storage backend, enabled when set: the bucket of the platform's layout");
    public static final Setting<String> PREFIX = Setting.string("s3.prefix").defaultsTo("pipeline-logs")
            .doc("key prefix, as the platform's prefix");
    public static final Setting<URI> ENDPOINT = Setting.httpUrl("s3.endpoint")
            .doc("S3-compatible endpoint; none = AWS for the region");
    public static final Setting<String> REGION = Setting.string("s3.region").defaultsTo("us-east-1")
            .notBlank().doc("region");
    public static final Setting<Boolean> PATH_STYLE = Setting.bool("s3.pathStyle").defaultsTo(false)
            .doc("path-style addressing (MinIO and most compatibles need true)");
    public static final Setting<String> ACCESS_KEY_ID = Setting.string("s3.accessKeyId")
            .doc("static credentials with s3.secretAccessKey; none = the AWS SDK's default chain");
    public static final Setting<String> SECRET_ACCESS_KEY = Setting.string("s3.secretAccessKey").secret()
            .doc("the secret of s3.accessKeyId");
    public static final Setting<Duration> TIMEOUT = Setting.millis("s3.timeoutMillis")
            .defaultsTo(Duration.ofMillis(5000)).positive()
            .doc("one S3 call's whole time, retries included");

    /** Every {@code s3.*} setting of the layout and the connection (the read limits: {@link ReadLimits}). */
    public static final List<Setting<?>> SETTINGS = List.of(BUCKET, PREFIX, ENDPOINT, REGION, PATH_STYLE,
            ACCESS_KEY_ID, SECRET_ACCESS_KEY, TIMEOUT);

    public ObjectStoreSettings {
        BUCKET.check(bucket);
        REGION.check(region);
        if (endpoint != null) {
            ENDPOINT.check(endpoint);
        }
        prefix = prefix == null ? "" : prefix.replaceAll("/+$", "");
        if ((accessKeyId == null) != (secretAccessKey == null)) {
            throw new IllegalArgumentException(ACCESS_KEY_ID.key() + " and " + SECRET_ACCESS_KEY.key()
                    + " go together");
        }
        TIMEOUT.check(timeout);
    }

    /**
     * The {@code s3.*} settings {@code settings} gives, absent ones at their defaults; null when {@code s3.bucket} is
     * unset (the backend is off). The other keys are then neither used nor checked.
     */
    public static ObjectStoreSettings from(SettingsReader settings) {
        if (!settings.isSet(BUCKET)) {
            settings.accept(SETTINGS); // the backend is off: its other settings are not used, nor checked
            return null;
        }
        return new ObjectStoreSettings(settings.get(ENDPOINT), settings.get(REGION), settings.get(BUCKET),
                settings.get(PREFIX), settings.get(PATH_STYLE), settings.get(ACCESS_KEY_ID),
                settings.get(SECRET_ACCESS_KEY), settings.get(TIMEOUT));
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

    /** Every component, the secret key masked ({@link ConfigText}). */
    @Override
    public String toString() {
        return ConfigText.describe(this);
    }
}
