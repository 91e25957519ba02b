package io.changestream.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import org.postgresql.ds.PGSimpleDataSource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MariaDBContainer;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The Testcontainers side of the harness: the only class that touches {@code org.testcontainers}, loaded only after
 * {@link TestComponents#require} found it on the classpath. Images can be overridden with
 * {@code changestream.test.<component>.image}.
 */
final class Containers {

    static final String KAFKA_IMAGE = "apache/kafka:4.3.1";
    static final String POSTGRES_IMAGE = "postgres:17";
    static final String MARIADB_IMAGE = "mariadb:11.4";

    private Containers() {
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static DockerImageName image(TestComponents.Component component, String fallback) {
        return DockerImageName.parse(System.getProperty(component.setting() + ".image", fallback));
    }

    /** A single-node KRaft broker in a container, with the same defaults as the embedded one. */
    static KafkaBroker kafka(Map<String, String> brokerOverrides) {
        KafkaContainer kafka = new KafkaContainer(image(TestComponents.Component.KAFKA, KAFKA_IMAGE))
                .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
        brokerOverrides.forEach((k, v) -> kafka.withEnv("KAFKA_" + k.toUpperCase(Locale.ROOT).replace('.', '_'), v));
        kafka.start();
        return new KafkaBroker() {
            @Override
            public String bootstrapServers() {
                return kafka.getBootstrapServers();
            }

            @Override
            public String kind() {
                return "testcontainers";
            }

            @Override
            public void close() {
                kafka.stop();
            }
        };
    }

    /** PostgreSQL with {@code wal_level=logical}, the embedded one's user, password and database. */
    static PostgresDatabase postgres() {
        PostgreSQLContainer<?> pg = new PostgreSQLContainer<>(image(TestComponents.Component.POSTGRES,
                POSTGRES_IMAGE).asCompatibleSubstituteFor("postgres"))
                .withUsername(PostgresDatabase.USER).withPassword(PostgresDatabase.PASSWORD)
                .withDatabaseName(PostgresDatabase.DATABASE)
                .withCommand("postgres", "-c", "wal_level=logical", "-c", "max_replication_slots=20",
                        "-c", "max_wal_senders=20", "-c", "synchronous_commit=on", "-c", "max_connections=200");
        pg.start();
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(pg.getJdbcUrl());
        ds.setUser(PostgresDatabase.USER);
        ds.setPassword(PostgresDatabase.PASSWORD);
        return new PostgresDatabase(pg.getHost(), pg.getMappedPort(PostgreSQLContainer.POSTGRESQL_PORT),
                pg.getJdbcUrl(), ds, pg::stop);
    }

    /** MariaDB with a ROW binlog and the embedded one's user (all privileges, as Debezium needs). */
    static MariaDbServer mariadb() {
        MariaDBContainer<?> db = new MariaDBContainer<>(image(TestComponents.Component.MARIADB, MARIADB_IMAGE)
                .asCompatibleSubstituteFor("mariadb"))
                .withUsername(MariaDbServer.USER).withPassword(MariaDbServer.PASSWORD)
                .withDatabaseName(MariaDbServer.DATABASE)
                .withCommand("--log-bin=binlog", "--binlog-format=ROW", "--binlog-row-image=FULL", "--server-id=1",
                        "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci");
        db.start();
        // the image grants its user only the database; capture needs replication rights (root's password = ours)
        try (Connection c = DriverManager.getConnection(db.getJdbcUrl(), "root", MariaDbServer.PASSWORD);
             Statement s = c.createStatement()) {
            s.execute("GRANT ALL PRIVILEGES ON *.* TO '" + MariaDbServer.USER + "'@'%' WITH GRANT OPTION");
        } catch (SQLException e) {
            db.stop();
            throw new HarnessException("could not grant replication rights in the MariaDB container", e);
        }
        return new MariaDbServer(db.getHost(), db.getMappedPort(3306), db::stop);
    }
}
