package io.changestream.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private MariaDB server (Debian's {@code mariadb-server} binaries) on its own port and data
 * directory with a ROW binlog, for Debezium's MariaDB connector. Run as user {@code mysql} when this
 * JVM is root. A user {@value #USER} with replication grants is created. {@link #close()} stops the
 * process and deletes the data directory.
 */
public final class MariaDbServer implements AutoCloseable {

    public static final String USER = "cdc";
    public static final String PASSWORD = "cdc-secret";
    public static final String DATABASE = "platform";

    private static final Path MARIADBD = Paths.get("/usr/sbin/mariadbd");
    private static final Path INSTALL_DB = Paths.get("/usr/bin/mariadb-install-db");

    private final Path dir;
    private final int port;
    private final Process process;
    private final String host;
    private final Runnable containerStop;
    private volatile boolean closed;

    private MariaDbServer(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.host = "127.0.0.1";
        this.containerStop = null;
    }

    /** A server in a container ({@link Containers}), stopped by {@code stop}. */
    MariaDbServer(String host, int port, Runnable stop) {
        this.dir = null;
        this.port = port;
        this.process = null;
        this.host = host;
        this.containerStop = stop;
    }

    /** Installs a fresh data directory and starts the server; fails loudly when MariaDB is missing. */
    public static MariaDbServer start() {
        if (TestComponents.require(TestComponents.Component.MARIADB) == TestComponents.Kind.TESTCONTAINERS) {
            return Containers.mariadb();
        }
        if (!Files.isExecutable(MARIADBD) || !Files.isExecutable(INSTALL_DB)) {
            throw new HarnessException("MariaDB server binaries not found (" + MARIADBD + ", " + INSTALL_DB
                    + "): install Debian's mariadb-server (ops/test does this)");
        }
        Path dir = null;
        Process process = null;
        try {
            dir = Files.createTempDirectory(Paths.get("/tmp"), "cs-mariadb-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            Path data = dir.resolve("data");
            Files.createDirectories(data);
            int port = freePort();
            boolean root = "root".equals(System.getProperty("user.name"));
            Path cnf = dir.resolve("my.cnf");
            Files.writeString(cnf, String.join("\n",
                    "[mysqld]",
                    "datadir=" + data,
                    "socket=" + dir.resolve("mysqld.sock"),
                    "pid-file=" + dir.resolve("mysqld.pid"),
                    "port=" + port,
                    "bind-address=127.0.0.1",
                    "log_bin=" + dir.resolve("data/binlog"),
                    "binlog_format=ROW",
                    "binlog_row_image=FULL",
                    "server_id=1",
                    "log_error=" + dir.resolve("error.log"),
                    "innodb_buffer_pool_size=64M",
                    "innodb_log_file_size=32M",
                    "skip-name-resolve",
                    "init-file=" + dir.resolve("init.sql"),
                    "character-set-server=utf8mb4",
                    "collation-server=utf8mb4_general_ci",
                    ""), StandardCharsets.UTF_8);
            // the init file runs with full privileges at every start: it creates the test user
            Files.writeString(dir.resolve("init.sql"), String.join("\n",
                    "CREATE DATABASE IF NOT EXISTS " + DATABASE + ";",
                    "CREATE USER IF NOT EXISTS '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "';",
                    "GRANT ALL PRIVILEGES ON *.* TO '" + USER + "'@'%' WITH GRANT OPTION;",
                    ""), StandardCharsets.UTF_8);
            if (root) {
                run(List.of("chown", "-R", "mysql:mysql", dir.toString()));
            }
            List<String> install = new ArrayList<>(List.of(INSTALL_DB.toString(), "--defaults-file=" + cnf,
                    "--skip-test-db", "--auth-root-authentication-method=socket"));
            if (root) {
                install.add("--user=mysql");
            }
            run(install);
            List<String> cmd = new ArrayList<>(List.of(MARIADBD.toString(), "--defaults-file=" + cnf));
            if (root) {
                cmd.add("--user=mysql");
            }
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
            waitForPort(port, process, dir, Duration.ofSeconds(60));
            return new MariaDbServer(dir, port, process);
        } catch (IOException | RuntimeException e) {
            if (process != null) {
                process.destroyForcibly();
            }
            String log = dir == null ? "" : tail(dir.resolve("error.log"));
            deleteQuietly(dir);
            throw new HarnessException("MariaDB did not start: " + e.getMessage() + log, e);
        }
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String jdbcUrl() {
        return "jdbc:mariadb://" + host + ":" + port + "/" + DATABASE;
    }

    public Connection connection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, PASSWORD);
    }

    /** Runs SQL statements (one per call unless the script form is used). */
    public void execute(String sql) {
        try (Connection c = DriverManager.getConnection(jdbcUrl() + "?allowMultiQueries=true", USER, PASSWORD);
             Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new HarnessException("SQL failed on the test MariaDB: " + e.getMessage(), e);
        }
    }

    /** Runs a SQL script from the classpath. */
    public void executeResource(String resource) {
        try (var in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new HarnessException("no SQL resource " + resource + " on the classpath");
            }
            execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new HarnessException("could not read SQL resource " + resource, e);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (containerStop != null) {
            containerStop.run();
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteQuietly(dir);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void waitForPort(int port, Process process, Path dir, Duration timeout) throws IOException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IOException("mariadbd exited with " + process.exitValue());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    process.waitFor(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
        throw new IOException("mariadbd did not open port " + port + " within " + timeout);
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: temp directory
        }
    }
}
