package io.changestream.logs.source;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A run's log as a file, {@code <root>/<pipelineFqn>/<runId>/logs.txt}, read by line offset (cursor = count of
 * complete lines before it, {@code "0"} at the start). Only complete ({@code \n}-terminated) lines are returned, so a
 * line being written is never split. Remembers the byte position of the last cursor it returned, so tailing reads
 * only the new bytes; any other cursor is found by counting lines from the start. Never rewinds: a cursor past the
 * end gives an empty page at that cursor. Keeps the file open between reads (one handle per tailed run, released by
 * {@link #close()}), so a poll that finds nothing new costs a size check. Thread-safe (synchronized).
 */
public final class StorageLogSource implements LogSource {

    /** The file name of a run's log under its run directory. */
    public static final String LOG_FILE = "logs.txt";
    private static final int BLOCK = 64 * 1024;

    private final Path runDir;
    private final Path file;
    private long hintLine;
    private long hintByte;
    private FileChannel channel;

    /** The log of {@code runDir} (which must be {@code root/fqn/runId}, validated by the caller). */
    public StorageLogSource(Path runDir) {
        this.runDir = runDir;
        this.file = runDir.resolve(LOG_FILE);
    }

    /** The run directory of {@code fqn/runId} under {@code root}, refusing unsafe names and escapes. */
    public static Path runDir(Path root, String pipelineFqn, String runId) {
        Path dir = root.resolve(PathNames.require("pipeline fqn", pipelineFqn))
                .resolve(PathNames.require("run id", runId)).normalize();
        if (!dir.startsWith(root.normalize())) {
            throw new IllegalArgumentException("run directory escapes the storage root");
        }
        return dir;
    }

    @Override
    public String kind() {
        return "storage";
    }

    /** A new reader of the same file (its own position hint and handle). */
    @Override
    public LogSource reopen() {
        return new StorageLogSource(runDir);
    }

    @Override
    public java.util.Optional<Path> watchDirectory() {
        return java.util.Optional.of(runDir);
    }

    @Override
    public String startCursor() {
        return "0";
    }

    @Override
    public synchronized Page read(String cursor, int maxLines, long maxBytes) throws IOException {
        long line;
        boolean restarted = false;
        try {
            line = cursor == null ? 0 : Long.parseLong(cursor.trim());
            if (line < 0) {
                throw new NumberFormatException("negative");
            }
        } catch (NumberFormatException e) {
            line = 0;
            restarted = true;
        }
        String before = Long.toString(line);
        if (channel == null) {
            try {
                channel = FileChannel.open(file, StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                requireRunDir();
                return Page.empty(before, restarted);
            }
        }
        long start = line == hintLine ? hintByte : seekLine(channel, line);
        if (start < 0 || start >= channel.size()) {
            requireRunDir();
            return Page.empty(before, restarted);
        }
        return readLines(channel, before, line, start, maxLines, maxBytes, restarted);
    }

    @Override
    public synchronized void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing left to release
            }
            channel = null;
        }
    }

    private void requireRunDir() {
        if (!Files.isDirectory(runDir)) {
            close();
            throw new SourceUnavailableException("The log of this run is no longer in storage.");
        }
    }

    private Page readLines(FileChannel channel, String before, long line, long start, int maxLines, long maxBytes,
                           boolean restarted) throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(BLOCK, Math.max(1, channel.size() - start)));
        long position = start;
        long lineStart = 0;
        int lines = 0;
        boolean more = false;
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        outer:
        while (true) {
            block.clear();
            int n = channel.read(block, position);
            if (n <= 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                byte b = block.get(i);
                current.write(b);
                if (b == '\n') {
                    if (lines > 0 && text.size() + current.size() > maxBytes) {
                        more = true;
                        break outer;
                    }
                    current.writeTo(text);
                    current.reset();
                    lines++;
                    lineStart = position + i + 1;
                    if (lines >= maxLines) {
                        more = lineStart < channel.size();
                        break outer;
                    }
                }
            }
            position += n;
        }
        if (lines == 0) {
            return Page.empty(before, restarted);
        }
        long after = line + lines;
        hintLine = after;
        hintByte = lineStart;
        return new Page(before, text.toString(StandardCharsets.UTF_8), Long.toString(after), more, restarted);
    }

    /** Byte position of line {@code line}, or -1 when the file has fewer complete lines. */
    private static long seekLine(FileChannel channel, long line) throws IOException {
        if (line == 0) {
            return 0;
        }
        ByteBuffer block = ByteBuffer.allocate(BLOCK);
        long position = 0;
        long seen = 0;
        while (true) {
            block.clear();
            int n = channel.read(block, position);
            if (n <= 0) {
                return -1;
            }
            for (int i = 0; i < n; i++) {
                if (block.get(i) == '\n' && ++seen == line) {
                    return position + i + 1;
                }
            }
            position += n;
        }
    }
}
