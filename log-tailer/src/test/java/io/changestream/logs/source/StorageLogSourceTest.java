package io.changestream.logs.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageLogSourceTest {

    @TempDir
    Path root;

    private Path log() throws Exception {
        return Files.createDirectories(StorageLogSource.runDir(root, "svc.pipe", "run-1")).resolve("logs.txt");
    }

    private static void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void readsLineOffsetPagesWithoutRepeats() throws Exception {
        Path file = log();
        append(file, "1\n2\n3\n4\n5\n");
        StorageLogSource source = new StorageLogSource(file.getParent());
        Page first = source.read(null, 2, 1 << 20);
        assertEquals("1\n2\n", first.text());
        assertEquals("2", first.cursorAfter());
        assertTrue(first.more());
        Page second = source.read(first.cursorAfter(), 2, 1 << 20);
        assertEquals("3\n4\n", second.text());
        Page third = source.read(second.cursorAfter(), 2, 1 << 20);
        assertEquals("5\n", third.text());
        assertFalse(third.more());
    }

    @Test
    void picksUpAppendedLinesAndHoldsBackAPartialLine() throws Exception {
        Path file = log();
        append(file, "a\nb");
        StorageLogSource source = new StorageLogSource(file.getParent());
        Page page = source.read("0", 100, 1 << 20);
        assertEquals("a\n", page.text());
        append(file, "c\nd\n");
        Page next = source.read(page.cursorAfter(), 100, 1 << 20);
        assertEquals("bc\nd\n", next.text());
        assertEquals("3", next.cursorAfter());
    }

    @Test
    void resumesFromACursorOnAFreshSource() throws Exception {
        Path file = log();
        append(file, "é1\né2\né3\n");
        Page page = new StorageLogSource(file.getParent()).read("2", 100, 1 << 20);
        assertEquals("é3\n", page.text());
        assertEquals("2", page.cursorBefore());
    }

    @Test
    void emptyPageNeverRewinds() throws Exception {
        Path file = log();
        append(file, "a\n");
        StorageLogSource source = new StorageLogSource(file.getParent());
        Page beyond = source.read("7", 100, 1 << 20);
        assertTrue(beyond.isEmpty());
        assertEquals("7", beyond.cursorAfter());
        Page caughtUp = source.read("1", 100, 1 << 20);
        assertEquals("1", caughtUp.cursorAfter());
    }

    @Test
    void badCursorRestartsFromZeroFlagged() throws Exception {
        Path file = log();
        append(file, "a\n");
        Page page = new StorageLogSource(file.getParent()).read("12:3", 100, 1 << 20);
        assertTrue(page.restarted());
        assertEquals("0", page.cursorBefore());
        assertEquals("a\n", page.text());
    }

    @Test
    void missingFileIsEmptyButMissingRunDirectoryIsFatal() throws Exception {
        Path dir = log().getParent();
        StorageLogSource source = new StorageLogSource(dir);
        assertTrue(source.read(null, 10, 100).isEmpty());
        Files.delete(dir);
        assertThrows(SourceUnavailableException.class, () -> source.read(null, 10, 100));
    }

    @Test
    void byteBudgetStopsBetweenLinesButReturnsAtLeastOne() throws Exception {
        Path file = log();
        append(file, "0123456789\nab\n");
        StorageLogSource source = new StorageLogSource(file.getParent());
        Page page = source.read(null, 100, 4);
        assertEquals("0123456789\n", page.text());
        assertTrue(page.more());
    }

    @Test
    void pathTraversalAndControlCharactersAreRejected() {
        for (String bad : new String[] {"..", "a/../b", "a/b", "a\\b", "x..y", "tab\there", "", "."}) {
            assertThrows(IllegalArgumentException.class, () -> StorageLogSource.runDir(root, bad, "r"), bad);
            assertThrows(IllegalArgumentException.class, () -> StorageLogSource.runDir(root, "p", bad), bad);
        }
        assertEquals(root.resolve("svc.pipe").resolve("scheduled__2026-01-01T00:00:00+00:00"),
                StorageLogSource.runDir(root, "svc.pipe", "scheduled__2026-01-01T00:00:00+00:00"));
    }
}
