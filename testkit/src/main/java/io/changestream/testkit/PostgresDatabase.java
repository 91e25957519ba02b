package io.changestream.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A private PostgreSQL 17 cluster (zonky's embedded binaries) with {@code wal_level=logical}, ready
 * for Debezium's pgoutput plugin. {@code synchronous_commit} is on (zonky turns it off, which hides
 * real commit latency). Every start is a fresh cluster; {@link #close()} drops inactive replication
 * slots and deletes the data directory.
 */
public final class PostgresDatabase implements AutoCloseable {

    /** Superuser created by initdb; local connections are trusted, any password is accepted. */
    public static final String USER = "postgres";
    /** Password clients may send (trust authentication ignores it). */
    public static final String PASSWORD = "postgres";
    /** Database the tests use. */
    public static final String DATABASE = "postgres";

    /** How a backend stops. */
    interface Stopper {
        void stop() throws IOException;
    }

    private final String host;
    private final int port;
    private final String jdbcUrl;
    private final DataSource dataSource;
    private final Stopper stopper;
    private volatile boolean closed;

    PostgresDatabase(String host, int port, String jdbcUrl, DataSource dataSource, Stopper stopper) {
        this.host = host;
        this.port = port;
        this.jdbcUrl = jdbcUrl;
        this.dataSource = dataSource;
        this.stopper = stopper;
    }

    /**
     * Starts a fresh cluster: the embedded binaries by default, a Testcontainers PostgreSQL with
     * {@code -Dchangestream.test.postgres=testcontainers} ({@link TestComponents}); fails loudly when the selected one
     * cannot run here.
     */
    public static PostgresDatabase start() {
        if (TestComponents.require(TestComponents.Component.POSTGRES) == TestComponents.Kind.TESTCONTAINERS) {
            return Containers.postgres();
        }
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("wal_level", "logical")
                    .setServerConfig("max_replication_slots", "20")
                    .setServerConfig("max_wal_senders", "20")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("max_connections", "200")
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start();
            return new PostgresDatabase("localhost", pg.getPort(), pg.getJdbcUrl(USER, DATABASE),
                    pg.getPostgresDatabase(), pg::close);
        } catch (IOException | RuntimeException e) {
            throw new HarnessException("the embedded PostgreSQL (wal_level=logical) did not start", e);
        }
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public Connection connection() throws SQLException {
        return dataSource().getConnection();
    }

    /** Runs one or more SQL statements separated by semicolons at line ends. */
    public void execute(String sql) {
        try (Connection c = connection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new HarnessException("SQL failed on the test PostgreSQL: " + e.getMessage(), e);
        }
    }

    /** Runs a SQL script from the classpath (e.g. a module's DDL resource). */
    public void executeResource(String resource) {
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new HarnessException("no SQL resource " + resource + " on the classpath");
            }
            execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new HarnessException("could not read SQL resource " + resource, e);
        }
    }

    /** Drops every inactive replication slot (they outlive their reader and pin WAL). */
    public void dropInactiveSlots() {
        execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE NOT active");
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            dropInactiveSlots();
        } catch (RuntimeException ignored) {
            // the cluster is deleted below anyway
        }
        try {
            stopper.stop();
        } catch (IOException | RuntimeException e) {
            throw new HarnessException("the test PostgreSQL did not stop cleanly", e);
        }
    }
}
