package io.changestream.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hostile HTTP receiver for tests: it accepts every connection, reads what comes and never answers (the socket
 * stays open until the client gives up or {@link #close}). Counts the requests it took (a request line starting with a method)
 * and the connections still open.
 */
public final class HangingHttpServer implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final Thread acceptor;

    /** Listens on a free loopback port. */
    public HangingHttpServer() {
        try {
            server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        acceptor = new Thread(this::accept, "hanging-receiver");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                sockets.add(s);
                Thread reader = new Thread(() -> drain(s), "hanging-receiver-conn");
                reader.setDaemon(true);
                reader.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Reads the requests of one connection and answers none; counts each request line. */
    private void drain(Socket s) {
        byte[] buf = new byte[8192];
        try (InputStream in = s.getInputStream()) {
            for (int n; (n = in.read(buf)) > 0; ) {
                String text = new String(buf, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
                if (text.startsWith("POST ") || text.startsWith("PUT ") || text.startsWith("GET ")) {
                    requests.incrementAndGet();
                }
            }
        } catch (IOException e) {
            // the client gave up
        } finally {
            sockets.remove(s);
        }
    }

    /** The URL of a path here. */
    public String url(String path) {
        return "http://127.0.0.1:" + server.getLocalPort() + path;
    }

    /** Requests taken (never answered). */
    public int requests() {
        return requests.get();
    }

    /** Connections the clients still hold open. */
    public int openConnections() {
        return sockets.size();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
