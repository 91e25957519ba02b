package io.changestream.logs.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.changestream.topics.model.LogStreamEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A sink that keeps every frame; when stalled, nothing is written and everything stays pending. */
final class ListSink implements ViewerSink {

    final List<String> frames = new ArrayList<>();
    boolean stalled;
    long pending;
    boolean closed;
    boolean aborted;
    /** Cursor of each frame written, null for frames without one. */
    final List<String> cursors = new ArrayList<>();
    private final List<String> pendingCursors = new ArrayList<>();
    String truncatedWith;

    @Override
    public synchronized void write(byte[] frame) {
        write(frame, null);
    }

    @Override
    public synchronized void write(byte[] frame, String cursorAfter) {
        if (closed) {
            return;
        }
        if (stalled) {
            pending += frame.length;
            pendingCursors.add(cursorAfter);
        } else {
            frames.add(new String(frame, StandardCharsets.UTF_8));
            cursors.add(cursorAfter);
        }
    }

    /** Writes the notice at once (the tests read what a stalled client would get once it reads again). */
    @Override
    public synchronized void truncate(java.util.function.Function<String, byte[]> notice) {
        if (closed) {
            return;
        }
        String written = null;
        for (String c : cursors) {
            if (c != null) {
                written = c;
            }
        }
        pending = 0;
        pendingCursors.clear();
        truncatedWith = written;
        frames.add(new String(notice.apply(written), StandardCharsets.UTF_8));
        closed = true;
    }

    @Override
    public synchronized long pendingBytes() {
        return pending;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    @Override
    public synchronized void abort() {
        closed = true;
        aborted = true;
    }

    synchronized List<LogStreamEvent> events() {
        List<LogStreamEvent> out = new ArrayList<>();
        for (String f : frames) {
            if (f.startsWith("data: ")) {
                try {
                    out.add(EventFrames.mapper().readValue(f.substring(6).trim(), LogStreamEvent.class));
                } catch (JsonProcessingException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return out;
    }

    synchronized String text() {
        StringBuilder b = new StringBuilder();
        events().stream().filter(e -> e.logs() != null).forEach(e -> b.append(e.logs()));
        return b.toString();
    }

    synchronized LogStreamEvent last() {
        List<LogStreamEvent> all = events();
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }
}
