package io.changestream.logs.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A run's log in object storage, read forward by ranged GETs from the cursor, as the platform writes it: while the
 * run is live the log is flushed to {@link ObjectStoreSettings#liveKey partial.txt} (the whole content again on each
 * flush), and when it closes the whole log is written to {@link ObjectStoreSettings#key logs.txt} and
 * {@code partial.txt} is removed. Both objects only grow and one is a prefix of the other, so the cursor is the byte
 * offset after the last complete line delivered, whichever object it came from: a read asks for
 * {@code bytes=<cursor>-<cursor+maxBytes-1>} of the object in use and returns up to its last newline (a line longer
 * than {@code maxBytes} is returned in pieces cut at a UTF-8 character boundary).
 *
 * <p>The switch: a live source reads {@code partial.txt}; when that is gone it reads {@code logs.txt} at the same
 * offset and stays on it (a run never reopens), so no line is lost or repeated at the switch. A source made for a
 * closed run ({@link #closed}) reads {@code logs.txt} only. 416 (range past the end) is an empty page; neither object
 * is {@link MissingLogException} (the run has not flushed yet); 403 is fatal ({@link SourceUnavailableException});
 * other errors and timeouts are transient. A cursor that is not a number restarts at 0 flagged
 * {@link Page#restarted()}. Reads go through the backend's {@link ReadGate} ({@code s3.maxConcurrentReads}) and
 * never read more of a body than the range asked for. Thread-safe: the one piece of state, which object is read, only moves live → closed.
 */
public final class ObjectStoreLogSource implements LogSource {

    private static final int RANGE_NOT_SATISFIABLE = 416;
    private static final int FORBIDDEN = 403;
    private static final int NOT_FOUND = 404;

    private final S3Client s3;
    private final String bucket;
    private final String key;
    private final String liveKey;
    private final ReadGate gate;
    private volatile boolean closedRun;

    /**
     * The source of a live run {@code pipelineFqn/runId} (both validated by {@link PathNames}): reads
     * {@code partial.txt}, then {@code logs.txt} once the run closed.
     */
    public ObjectStoreLogSource(S3Client s3, ObjectStoreSettings settings, String pipelineFqn, String runId) {
        this(s3, settings, new ReadGate(ReadLimits.s3Defaults()), pipelineFqn, runId, false);
    }

    /** As {@link #ObjectStoreLogSource(S3Client, ObjectStoreSettings, String, String)}, reads bounded by {@code gate}. */
    public ObjectStoreLogSource(S3Client s3, ObjectStoreSettings settings, ReadGate gate, String pipelineFqn,
                                String runId) {
        this(s3, settings, gate, pipelineFqn, runId, false);
    }

    private ObjectStoreLogSource(S3Client s3, ObjectStoreSettings settings, ReadGate gate, String pipelineFqn,
                                 String runId, boolean closedRun) {
        this.s3 = s3;
        this.gate = gate;
        this.bucket = settings.bucket();
        this.key = settings.key(PathNames.require("pipeline fqn", pipelineFqn), PathNames.require("run id", runId));
        this.liveKey = settings.liveKey(pipelineFqn, runId);
        this.closedRun = closedRun;
    }

    /** The source of a run whose {@code logs.txt} exists: {@code partial.txt} is never read. */
    public static ObjectStoreLogSource closed(S3Client s3, ObjectStoreSettings settings, ReadGate gate,
                                              String pipelineFqn, String runId) {
        return new ObjectStoreLogSource(s3, settings, gate, pipelineFqn, runId, true);
    }

    @Override
    public int maxActiveRuns() {
        return gate.limits().maxActiveRuns();
    }

    @Override
    public String kind() {
        return "s3";
    }

    @Override
    public String startCursor() {
        return "0";
    }

    /** The key of the closed run's log ({@code logs.txt}). */
    public String key() {
        return key;
    }

    /** The key of the live run's log ({@code partial.txt}). */
    public String liveKey() {
        return liveKey;
    }

    /** The key the next read asks for: {@code partial.txt} until it was seen gone, then {@code logs.txt}. */
    public String readingKey() {
        return closedRun ? key : liveKey;
    }

    @Override
    public Page read(String cursor, int maxLines, long maxBytes) throws IOException {
        long offset;
        boolean restarted = false;
        try {
            offset = cursor == null ? 0 : Long.parseLong(cursor);
            if (offset < 0) {
                throw new NumberFormatException("negative");
            }
        } catch (NumberFormatException e) {
            offset = 0;
            restarted = true;
        }
        String before = Long.toString(offset);
        long budget = Math.max(1, maxBytes);
        Got got;
        if (closedRun) {
            got = get(key, offset, budget);
        } else {
            got = get(liveKey, offset, budget);
            if (got == null) {
                // partial.txt is gone (or was never flushed): logs.txt holds the whole log at the same offsets
                got = get(key, offset, budget);
                if (got != null) {
                    closedRun = true;
                }
            }
        }
        if (got == null) {
            throw new MissingLogException("No log object for this run yet.");
        }
        byte[] bytes = got.bytes();
        long total = got.total();
        int end = completeLines(bytes, maxLines);
        if (end == 0 && bytes.length >= budget) {
            end = characterBoundary(bytes);
        }
        long after = offset + end;
        String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
        // more only when a page limit stopped this read (not for an incomplete last line still being written)
        boolean more = after < total && (bytes.length >= budget || end < completeLines(bytes, Integer.MAX_VALUE));
        return new Page(before, text, Long.toString(after), more, restarted);
    }

    /** What one ranged GET found: the bytes (empty past the end) and the object's size. */
    private record Got(byte[] bytes, long total) {
    }

    /**
     * One ranged GET of {@code objectKey} from {@code offset}, its body read to at most the {@code budget} bytes asked
     * for (and {@code s3.maxResponseBytes}) whatever the server sends; null when the object does not exist (404).
     */
    private Got get(String objectKey, long offset, long budget) throws IOException {
        String range = "bytes=" + offset + "-" + (offset + budget - 1);
        gate.enter();
        try (ResponseInputStream<GetObjectResponse> body = s3.getObject(b -> b.bucket(bucket).key(objectKey)
                .range(range))) {
            GetObjectResponse response = body.response();
            if (response.contentRange() == null && offset > 0) {
                body.abort();
                throw new SourceUnavailableException("The object store ignored the Range header of a read of this "
                        + "run's log; log-tailer reads object storage by ranges only.");
            }
            int cap = (int) Math.min(Math.min(budget, gate.limits().maxResponseBytes()), Integer.MAX_VALUE - 8);
            byte[] bytes = body.readNBytes(cap);
            if (body.read() != -1) {
                body.abort();
            }
            return new Got(bytes, totalSize(response, offset + bytes.length));
        } catch (S3Exception e) {
            int status = e.statusCode();
            if (status == RANGE_NOT_SATISFIABLE) {
                return new Got(new byte[0], offset);
            }
            if (status == FORBIDDEN) {
                throw new SourceUnavailableException("The object store refused the log of this run (HTTP 403): "
                        + "check the bucket policy and s3.* credentials.");
            }
            if (status == NOT_FOUND) {
                return null;
            }
            throw new IOException("object store answered HTTP " + status + " for " + objectKey, e);
        } catch (SdkException e) {
            throw new IOException("object store not reachable: " + e.getMessage(), e);
        } finally {
            gate.exit();
        }
    }

    /** The length up to the end of the last complete line within {@code maxLines} lines; 0 when none. */
    private static int completeLines(byte[] bytes, int maxLines) {
        int lines = 0;
        int end = 0;
        for (int i = 0; i < bytes.length && lines < maxLines; i++) {
            if (bytes[i] == '\n') {
                lines++;
                end = i + 1;
            }
        }
        return end;
    }

    /** The longest prefix of {@code bytes} that does not split a UTF-8 character (at least 1). */
    private static int characterBoundary(byte[] bytes) {
        int p = bytes.length;
        int continuation = 0;
        while (p > 0 && continuation < 3 && (bytes[p - 1] & 0xC0) == 0x80) {
            p--;
            continuation++;
        }
        if (p == 0) {
            return bytes.length;
        }
        int lead = bytes[p - 1] & 0xFF;
        int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        int end = p - 1 + length <= bytes.length ? bytes.length : p - 1;
        return Math.max(1, end);
    }

    /** The object's size from {@code Content-Range: bytes a-b/size}; {@code fallback} when absent. */
    private static long totalSize(GetObjectResponse response, long fallback) {
        String range = response.contentRange();
        if (range != null) {
            int slash = range.lastIndexOf('/');
            if (slash >= 0 && !range.endsWith("*")) {
                try {
                    return Long.parseLong(range.substring(slash + 1).trim());
                } catch (NumberFormatException e) {
                    return fallback;
                }
            }
        }
        return fallback;
    }
}
