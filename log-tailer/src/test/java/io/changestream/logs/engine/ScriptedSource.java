package io.changestream.logs.engine;

import io.changestream.logs.source.LogSource;
import io.changestream.logs.source.Page;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory line log with a line-offset cursor; counts reads and fails on demand. */
final class ScriptedSource implements LogSource {

    private final List<String> lines = new ArrayList<>();
    final AtomicInteger reads = new AtomicInteger();
    IOException transientFailure;
    RuntimeException fatalFailure;
    int maxActiveRuns = Integer.MAX_VALUE;

    synchronized void append(String... more) {
        lines.addAll(List.of(more));
    }

    @Override
    public String kind() {
        return "scripted";
    }

    @Override
    public int maxActiveRuns() {
        return maxActiveRuns;
    }

    @Override
    public String startCursor() {
        return "0";
    }

    @Override
    public synchronized Page read(String cursor, int maxLines, long maxBytes) throws IOException {
        reads.incrementAndGet();
        if (transientFailure != null) {
            throw transientFailure;
        }
        if (fatalFailure != null) {
            throw fatalFailure;
        }
        int from;
        boolean restarted = false;
        try {
            from = Integer.parseInt(cursor);
        } catch (NumberFormatException e) {
            from = 0;
            restarted = true;
        }
        StringBuilder text = new StringBuilder();
        int at = from;
        while (at < lines.size() && at - from < maxLines) {
            String line = lines.get(at) + "\n";
            if (text.length() > 0 && text.length() + line.length() > maxBytes) {
                break;
            }
            text.append(line);
            at++;
        }
        return new Page(Integer.toString(from), text.toString(), Integer.toString(at), at < lines.size(), restarted);
    }
}
