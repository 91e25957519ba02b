package io.changestream.logs.source;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One read of a {@link LogSource}: the text after {@code cursorBefore} up to {@code cursorAfter}. Immutable.
 *
 * @param cursorBefore where this read started (the source's start cursor when the requested one was unusable)
 * @param text         log text, possibly empty
 * @param cursorAfter  the cursor to read on from; equal to {@code cursorBefore} when nothing was read
 * @param more         true when the source stopped at a page limit and already holds more content
 * @param restarted    true when the requested cursor could not be read and the source restarted from the start
 */
public record Page(String cursorBefore, String text, String cursorAfter, boolean more, boolean restarted) {

    public Page {
        Objects.requireNonNull(cursorBefore, "cursorBefore");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(cursorAfter, "cursorAfter");
    }

    /** An empty page at {@code cursor}. */
    public static Page empty(String cursor, boolean restarted) {
        return new Page(cursor, "", cursor, false, restarted);
    }

    /** True when the page carries no text. */
    public boolean isEmpty() {
        return text.isEmpty();
    }

    /** UTF-8 size of the text. */
    public long bytes() {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
