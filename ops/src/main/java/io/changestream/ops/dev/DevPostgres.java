package io.changestream.ops.dev;

import io.changestream.ops.OpsException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The dev stack's PostgreSQL 17 (zonky's embedded binaries) with {@code wal_level=logical}, its data directory under
 * the dev data directory (kept between runs), and the platform's tables from cdc-connector's DDL. Started and closed
 * by the dev stack's thread.
 */
public final class DevPostgres implements AutoCloseable {

    /** Superuser and database of the cluster (local trust authentication). */
    public static final String USER = "postgres";
    /** Database name. */
    public static final String DATABASE = "postgres";
    /** cdc-connector's PostgreSQL DDL on the classpath. */
    static final String DDL = "io/changestream/cdc/sql/postgres.sql";

    private final EmbeddedPostgres postgres;

    private DevPostgres(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /** Starts (initializing {@code dir} on first use) on {@code port} and creates the platform's tables. */
    public static DevPostgres start(Path dir, int port, Duration startTimeout) {
        EmbeddedPostgres pg;
        try {
            pg = EmbeddedPostgres.builder()
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setServerConfig("wal_level", "logical")
                    .setServerConfig("max_replication_slots", "10")
                    .setServerConfig("max_wal_senders", "10")
                    .setServerConfig("synchronous_commit", "on")
                    .setPGStartupWait(startTimeout)
                    .start();
        } catch (IOException | RuntimeException e) {
            throw new OpsException("the embedded PostgreSQL did not start in " + dir + ": " + e.getMessage(), e);
        }
        DevPostgres db = new DevPostgres(pg);
        try {
            db.execute(readDdl());
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
        return db;
    }

    private static String readDdl() {
        try (InputStream in = DevPostgres.class.getClassLoader().getResourceAsStream(DDL)) {
            if (in == null) {
                throw new OpsException("cdc-connector's DDL " + DDL + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new OpsException("cannot read " + DDL, e);
        }
    }

    /** The port it listens on. */
    public int port() {
        return postgres.getPort();
    }

    /** A pooled-less data source for the superuser. */
    public DataSource dataSource() {
        return postgres.getPostgresDatabase();
    }

    /** Runs SQL (several statements allowed). */
    public void execute(String sql) {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new OpsException("SQL failed on the dev PostgreSQL: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new OpsException("the embedded PostgreSQL did not stop cleanly: " + e.getMessage(), e);
        }
    }
}
