package io.changestream.testkit;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A JDK HTTP server on 127.0.0.1 and a free port, one handler for every path, each exchange on a thread of its own
 * cached pool: the plumbing under the tests' local receivers (webhooks, stand-ins for external services). Started by
 * {@link #start}; {@link #close} stops it at once and interrupts exchanges still running.
 */
public final class LoopbackHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    private LoopbackHttpServer(int backlog, HttpHandler handler) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), backlog);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(pool);
        server.createContext("/", handler);
        server.start();
    }

    /** Starts a server whose {@code handler} answers every path; {@code backlog} bounds its accept queue. */
    public static LoopbackHttpServer start(int backlog, HttpHandler handler) {
        return new LoopbackHttpServer(backlog, handler);
    }

    /** The port it listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port><path>}. */
    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
