package io.changestream.cdc.prereq;

import io.changestream.cdc.CdcConfig;
import io.changestream.cdc.CdcException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

/**
 * Checks the configured database before the engine reads it: connects as {@code database.user} over JDBC, queries
 * the server's settings and the user's grants, and returns every prerequisite that is missing (PostgreSQL:
 * {@link PostgresPrerequisites}; MariaDB: {@link MariaDbPrerequisites}). Stateless; called by the capture thread
 * before each engine run. The password is sent to the server only.
 */
public final class Prerequisites {

    /** Connect and read timeouts of the check's own connection, seconds. */
    static final int CONNECT_TIMEOUT_SECONDS = 10;
    static final int READ_TIMEOUT_SECONDS = 30;

    /** The JDBC drivers, loaded by name: a shaded jar's merged service files are not relied on. */
    static final String POSTGRES_DRIVER = "org.postgresql.Driver";
    static final String MARIADB_DRIVER = "org.mariadb.jdbc.Driver";

    private Prerequisites() {
    }

    /**
     * Every missing prerequisite, each a sentence naming the setting or grant and its fix; empty when all are met.
     *
     * @throws CdcException.Retriable when the database cannot be reached or refuses the login (the capture loop
     *                                retries)
     */
    public static List<String> missing(CdcConfig config) {
        CdcConfig.Database db = config.database();
        Properties props = new Properties();
        props.setProperty("user", db.user());
        props.setProperty("password", db.password());
        String url;
        if (db.isPostgres()) {
            url = "jdbc:postgresql://" + db.host() + ":" + db.port() + "/" + db.name();
            props.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
            props.setProperty("socketTimeout", Integer.toString(READ_TIMEOUT_SECONDS));
            props.setProperty("ApplicationName", config.capture().connectorName() + "-prerequisites");
        } else {
            url = "jdbc:mariadb://" + db.host() + ":" + db.port() + "/";
            props.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS * 1000));
            props.setProperty("socketTimeout", Integer.toString(READ_TIMEOUT_SECONDS * 1000));
        }
        String driver = db.isPostgres() ? POSTGRES_DRIVER : MARIADB_DRIVER;
        try {
            Class.forName(driver); // registers itself with DriverManager
        } catch (ClassNotFoundException e) {
            throw new CdcException("the JDBC driver " + driver + " is not on the class path", e);
        }
        try (Connection c = DriverManager.getConnection(url, props)) {
            return db.isPostgres() ? PostgresPrerequisites.check(c, config) : MariaDbPrerequisites.check(c, config);
        } catch (SQLException e) {
            throw new CdcException.Retriable("could not check the database prerequisites on " + describe(db) + ": "
                    + e.getMessage(), e);
        }
    }

    /** Throws a {@link PrerequisiteException} listing every missing prerequisite, if any. */
    public static void require(CdcConfig config) {
        List<String> problems = missing(config);
        if (!problems.isEmpty()) {
            throw new PrerequisiteException(describe(config.database()), problems);
        }
    }

    /** {@code postgres localhost:5432/postgres as user cdc}: where the check ran, for messages. */
    static String describe(CdcConfig.Database db) {
        return db.kind() + " " + db.host() + ":" + db.port() + "/" + db.name() + " as user " + db.user();
    }
}
