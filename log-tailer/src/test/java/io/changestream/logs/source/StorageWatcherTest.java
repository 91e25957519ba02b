package io.changestream.logs.source;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageWatcherTest {

    @TempDir
    Path root;

    @Test
    void appendToAWatchedRunWakesItsCallbackUntilUnwatched() throws Exception {
        Path dir = Files.createDirectories(root.resolve("svc.pipe/r1"));
        Path other = Files.createDirectories(root.resolve("svc.pipe/r2"));
        AtomicInteger changes = new AtomicInteger();
        AtomicInteger otherChanges = new AtomicInteger();
        try (StorageWatcher watcher = new StorageWatcher()) {
            AutoCloseable watch = watcher.watch(dir, changes::incrementAndGet);
            watcher.watch(other, otherChanges::incrementAndGet);
            Files.writeString(dir.resolve("logs.txt"), "a\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            await().atMost(Duration.ofSeconds(10)).until(() -> changes.get() >= 1);
            assertEquals(0, otherChanges.get());
            watch.close();
            int seen = changes.get();
            Files.writeString(dir.resolve("logs.txt"), "b\n", StandardOpenOption.APPEND);
            Files.writeString(other.resolve("logs.txt"), "c\n", StandardOpenOption.CREATE);
            await().atMost(Duration.ofSeconds(10)).until(() -> otherChanges.get() >= 1);
            assertEquals(seen, changes.get());
        }
    }
}
