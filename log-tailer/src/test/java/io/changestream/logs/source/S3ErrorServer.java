package io.changestream.logs.source;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A local server answering every request as S3 does for a bucket policy that denies the caller: 403 with the
 * documented error body ({@code <Error><Code>AccessDenied</Code>…}) — S3Mock checks no permissions — optionally
 * after a delay (a slow endpoint).
 */
final class S3ErrorServer implements AutoCloseable {

    private static final String ACCESS_DENIED = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied"
            + "</Code><Message>Access Denied</Message><RequestId>4442587FB7D0A2F9</RequestId><HostId>h14</HostId>"
            + "</Error>";

    private final HttpServer server;

    S3ErrorServer(long delayMillis) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (delayMillis > 0) {
                    try {
                        Thread.sleep(delayMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] body = ACCESS_DENIED.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/xml");
                exchange.getResponseHeaders().set("x-amz-request-id", "4442587FB7D0A2F9");
                if ("HEAD".equals(exchange.getRequestMethod())) {
                    exchange.sendResponseHeaders(403, -1);
                } else {
                    exchange.sendResponseHeaders(403, body.length);
                    exchange.getResponseBody().write(body);
                }
            }
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
