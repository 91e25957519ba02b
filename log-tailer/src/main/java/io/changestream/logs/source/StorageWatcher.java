package io.changestream.logs.source;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes tailers when their storage directory changes (inotify on Linux through {@link WatchService}), so an append
 * reaches viewers at once instead of at the next poll; polling stays as the fallback and keeps the stop rules'
 * timing. Owns one daemon thread; registrations come from any thread. A lost-events overflow wakes every
 * registered callback. {@link #close()} stops the thread.
 */
public final class StorageWatcher implements ChangeWatch, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StorageWatcher.class);

    private final WatchService service;
    private final Map<Path, WatchKey> keys = new ConcurrentHashMap<>();
    private final Map<Path, List<Runnable>> callbacks = new ConcurrentHashMap<>();
    private final Thread thread;

    /** Starts the watch thread. */
    public StorageWatcher() throws IOException {
        this.service = FileSystems.getDefault().newWatchService();
        this.thread = new Thread(this::loop, "log-tailer-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** Calls {@code onChange} (on the watch thread: keep it short) whenever something in {@code dir} changes. */
    @Override
    public synchronized AutoCloseable watch(Path dir, Runnable onChange) {
        Path key = dir.toAbsolutePath().normalize();
        try {
            keys.computeIfAbsent(key, d -> {
                try {
                    return d.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                            StandardWatchEventKinds.ENTRY_MODIFY);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        } catch (java.io.UncheckedIOException | ClosedWatchServiceException e) {
            LOG.debug("cannot watch {} ({}); polling only", dir, e.toString());
            return () -> { };
        }
        callbacks.computeIfAbsent(key, d -> new CopyOnWriteArrayList<>()).add(onChange);
        return () -> unwatch(key, onChange);
    }

    private synchronized void unwatch(Path dir, Runnable onChange) {
        List<Runnable> list = callbacks.get(dir);
        if (list != null) {
            list.remove(onChange);
            if (list.isEmpty()) {
                callbacks.remove(dir);
                WatchKey key = keys.remove(dir);
                if (key != null) {
                    key.cancel();
                }
            }
        }
    }

    private void loop() {
        while (true) {
            WatchKey key;
            try {
                key = service.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            boolean overflow = false;
            for (WatchEvent<?> event : key.pollEvents()) {
                overflow |= event.kind() == StandardWatchEventKinds.OVERFLOW;
            }
            if (overflow) {
                callbacks.values().forEach(list -> list.forEach(StorageWatcher::run));
            } else if (key.watchable() instanceof Path dir) {
                callbacks.getOrDefault(dir, List.of()).forEach(StorageWatcher::run);
            }
            key.reset();
        }
    }

    private static void run(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("storage change callback failed", e);
        }
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException e) {
            LOG.debug("closing the watch service: {}", e.toString());
        }
        thread.interrupt();
    }
}
