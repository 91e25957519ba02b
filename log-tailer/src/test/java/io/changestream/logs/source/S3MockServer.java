package io.changestream.logs.source;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Adobe S3Mock (the S3 protocol: buckets, objects, ranged GETs, ListObjectsV2) as a child process, from the exec jar
 * the build copies to {@code target/s3mock}. A child process because its Spring Boot and Tomcat would clash with
 * the log-tailer's Jetty on one classpath. One bucket, {@link #BUCKET}, created at start. S3Mock accepts any
 * credentials (it does not check signatures). {@link #shared()} starts one per test JVM (a start takes 7-30 s).
 */
public final class S3MockServer implements AutoCloseable {

    /** The bucket created at start. */
    public static final String BUCKET = "openmetadata-logs";
    private static final Path JAR = Path.of("target/s3mock/s3mock-exec.jar");

    private static S3MockServer shared;

    private final Process process;
    private final int port;
    private final Path output;

    private S3MockServer(Process process, int port, Path output) {
        this.process = process;
        this.port = port;
        this.output = output;
    }

    /** The test JVM's one S3Mock, started on first use, stopped when the JVM exits. */
    public static synchronized S3MockServer shared() throws IOException {
        if (shared == null) {
            Path dir = Files.createTempDirectory("s3mock");
            shared = start(dir);
            S3MockServer started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "s3mock-stop"));
        }
        return shared;
    }

    /** Starts S3Mock with its store under {@code dir} and waits until it serves (bounded: 90 s on a busy host). */
    public static S3MockServer start(Path dir) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR + " is missing: run the ITs through Maven (pre-integration-test "
                    + "copies it)");
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path output = dir.resolve("s3mock.out");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar",
                JAR.toAbsolutePath().toString(), "--com.adobe.testing.s3mock.httpPort=" + port, "--server.port=0",
                "--com.adobe.testing.s3mock.store.initialBuckets=" + BUCKET,
                "--com.adobe.testing.s3mock.store.root=" + dir.resolve("store"),
                "--spring.main.banner-mode=off"))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        S3MockServer server = new S3MockServer(process, port, output);
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("S3Mock exited: " + Files.readString(output));
                }
                return Files.readString(output).contains("Started S3MockApplication");
            });
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** The plain-HTTP endpoint ({@code s3.endpoint}; path-style addressing). */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Stops the process (and waits for it). */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the process printed (for failure messages). */
    public String output() throws IOException {
        return Files.readString(output);
    }
}
