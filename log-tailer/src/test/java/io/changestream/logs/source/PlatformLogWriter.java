package io.changestream.logs.source;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Writes one run's log to object storage the way the platform's log writer does: lines are appended in memory, the
 * whole content so far is flushed to {@code partial.txt} on an interval, and when the run closes the whole log is
 * written to {@code logs.txt} and {@code partial.txt} is removed. Lines appended after the last flush reach
 * {@code logs.txt} only, as when the run closes between two flushes. Test threads and its flush thread call it.
 */
public final class PlatformLogWriter implements AutoCloseable {

    private final S3Client s3;
    private final String bucket;
    private final String liveKey;
    private final String finalKey;
    private final StringBuilder content = new StringBuilder();
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "platform-log-flush");
        t.setDaemon(true);
        return t;
    });
    private int flushed;
    private boolean closed;

    /** A writer of {@code fqn/runId} in the platform's layout of {@code settings}, flushing every {@code millis}. */
    public PlatformLogWriter(S3Client s3, ObjectStoreSettings settings, String fqn, String runId, long millis) {
        this.s3 = s3;
        this.bucket = settings.bucket();
        this.liveKey = settings.liveKey(fqn, runId);
        this.finalKey = settings.key(fqn, runId);
        flusher.scheduleWithFixedDelay(this::flush, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Appends one line (a newline is added). */
    public synchronized void line(String text) {
        content.append(text).append('\n');
    }

    /** Flushes {@code partial.txt} now (the whole content so far), as the platform's interval flush does. */
    public synchronized void flush() {
        if (!closed && content.length() > flushed) {
            s3.putObject(b -> b.bucket(bucket).key(liveKey).contentType("text/plain"),
                    RequestBody.fromString(content.toString()));
            flushed = content.length();
        }
    }

    /** Stops the interval flushes (the next one has not come yet): what is appended now reaches logs.txt only. */
    public void stopFlushing() throws InterruptedException {
        flusher.shutdown();
        flusher.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** The whole content appended so far. */
    public synchronized String content() {
        return content.toString();
    }

    /** Closes the run: stops flushing, writes {@code logs.txt} with everything, then removes {@code partial.txt}. */
    @Override
    public void close() throws InterruptedException {
        stopFlushing();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            s3.putObject(b -> b.bucket(bucket).key(finalKey).contentType("text/plain"),
                    RequestBody.fromString(content.toString()));
            s3.deleteObject(b -> b.bucket(bucket).key(liveKey));
        }
    }
}
