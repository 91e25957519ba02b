package io.changestream.cdc.prereq;

import io.changestream.cdc.CdcConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The PostgreSQL prerequisites of pgoutput capture with {@code publication.autocreate.mode=filtered}: {@code wal_level},
 * a free replication slot (or ours, for pgoutput on this database) and WAL sender, a role with {@code REPLICATION},
 * {@code SELECT} on both captured tables, and a publication of exactly those tables, or the right to create or change
 * it (what Debezium does at start when it is missing or lists other tables). Runs on the capture thread.
 */
final class PostgresPrerequisites {

    private PostgresPrerequisites() {
    }

    static List<String> check(Connection c, CdcConfig config) throws SQLException {
        List<String> problems = new ArrayList<>();
        CdcConfig.Database db = config.database();
        CdcConfig.Capture capture = config.capture();

        String walLevel = scalar(c, "SELECT current_setting('wal_level')");
        if (!"logical".equals(walLevel)) {
            problems.add("PostgreSQL wal_level is '" + walLevel + "', logical decoding needs 'logical' "
                    + "(postgresql.conf wal_level=logical, restart)");
        }

        String user;
        boolean superuser;
        boolean replication;
        try (PreparedStatement s = c.prepareStatement("SELECT current_user, r.rolsuper, r.rolreplication OR EXISTS "
                + "(SELECT 1 FROM pg_roles g WHERE g.rolname = 'rds_replication' AND pg_has_role(current_user, g.oid, "
                + "'MEMBER')) FROM pg_roles r WHERE r.rolname = current_user"); ResultSet rs = s.executeQuery()) {
            rs.next();
            user = rs.getString(1);
            superuser = rs.getBoolean(2);
            replication = rs.getBoolean(3);
        }
        if (!superuser && !replication) {
            problems.add("PostgreSQL user " + user + " lacks REPLICATION, which a logical replication connection "
                    + "needs (ALTER ROLE " + user + " WITH REPLICATION)");
        }

        boolean slotActive = slot(c, capture.slotName(), db.name(), problems);
        int senders = Integer.parseInt(scalar(c, "SELECT current_setting('max_wal_senders')"));
        if (senders == 0) {
            problems.add("PostgreSQL max_wal_senders is 0: no replication connection is admitted "
                    + "(postgresql.conf max_wal_senders=10, restart)");
        } else if (!slotActive) {
            int used = Integer.parseInt(scalar(c, "SELECT count(*) FROM pg_stat_replication"));
            if (used >= senders) {
                problems.add("PostgreSQL has all " + senders + " WAL senders in use (max_wal_senders=" + senders
                        + "): raise max_wal_senders in postgresql.conf (restart)");
            }
        }

        List<String> wanted = new ArrayList<>();
        boolean ownsAll = true;
        for (String table : List.of(config.transform().changeEventTable(), config.transform().pipelineStatusTable())) {
            String name = db.schema() + "." + table;
            try (PreparedStatement s = c.prepareStatement("SELECT has_table_privilege(c.oid, 'SELECT'), "
                    + "pg_has_role(c.relowner, 'USAGE') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    + "WHERE n.nspname = ? AND c.relname = ? AND c.relkind IN ('r', 'p')")) {
                s.setString(1, db.schema());
                s.setString(2, table);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        problems.add("PostgreSQL table " + name + " does not exist in database " + db.name()
                                + ": create the platform's tables before the connector starts");
                        continue;
                    }
                    wanted.add(name);
                    if (!rs.getBoolean(1)) {
                        problems.add("PostgreSQL user " + user + " lacks SELECT on " + name + " (GRANT SELECT ON "
                                + name + " TO " + user + ")");
                    }
                    ownsAll &= rs.getBoolean(2);
                }
            }
        }
        if (!superuser && !wanted.isEmpty()) {
            publication(c, capture.publicationName(), db.name(), user, wanted, ownsAll, problems);
        }
        return problems;
    }

    /** Checks our slot, or room for it; true when it exists and a reader holds it (a standby: not our problem). */
    private static boolean slot(Connection c, String slot, String database, List<String> problems)
            throws SQLException {
        int max = Integer.parseInt(scalar(c, "SELECT current_setting('max_replication_slots')"));
        int count = 0;
        boolean active = false;
        boolean found = false;
        try (PreparedStatement s = c.prepareStatement(
                "SELECT slot_name, slot_type, plugin, database, active FROM pg_replication_slots");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                count++;
                if (!slot.equals(rs.getString(1))) {
                    continue;
                }
                found = true;
                active = rs.getBoolean(5);
                if (!"logical".equals(rs.getString(2)) || !"pgoutput".equals(rs.getString(3))
                        || !database.equals(rs.getString(4))) {
                    problems.add("PostgreSQL replication slot " + slot + " exists as a " + rs.getString(2) + " slot"
                            + (rs.getString(3) == null ? "" : " of plugin " + rs.getString(3))
                            + (rs.getString(4) == null ? "" : " on database " + rs.getString(4))
                            + ", not a pgoutput slot on " + database + ": set postgres.slot.name to another name, or "
                            + "drop it (SELECT pg_drop_replication_slot('" + slot + "'))");
                }
            }
        }
        if (max == 0) {
            problems.add("PostgreSQL max_replication_slots is 0: no replication slot can be created "
                    + "(postgresql.conf max_replication_slots=10, restart)");
        } else if (!found && count >= max) {
            problems.add("PostgreSQL has all " + max + " replication slots in use (max_replication_slots=" + max
                    + ") and none is " + slot + ": raise max_replication_slots (restart) or drop a slot nobody "
                    + "reads (SELECT pg_drop_replication_slot('<name>'))");
        }
        return found && active;
    }

    /**
     * With {@code publication.autocreate.mode=filtered} Debezium uses a publication of exactly the captured tables,
     * creates a missing one ({@code CREATE PUBLICATION … FOR TABLE …}: CREATE on the database, owning the tables) and
     * changes one that lists other tables ({@code ALTER PUBLICATION … SET TABLE …}: owning it and the tables); one
     * {@code FOR ALL TABLES} it refuses.
     */
    private static void publication(Connection c, String publication, String database, String user,
                                    List<String> wanted, boolean ownsTables, List<String> problems)
            throws SQLException {
        String create = "CREATE PUBLICATION " + publication + " FOR TABLE " + String.join(", ", wanted);
        try (PreparedStatement s = c.prepareStatement("SELECT p.puballtables, pg_has_role(p.pubowner, 'USAGE') "
                + "FROM pg_publication p WHERE p.pubname = ?")) {
            s.setString(1, publication);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    boolean mayCreate = flag(c, "SELECT has_database_privilege(current_database(), 'CREATE')");
                    if (!mayCreate || !ownsTables) {
                        problems.add("PostgreSQL publication " + publication + " does not exist and user " + user
                                + " cannot create it (" + (mayCreate ? "" : "no CREATE on database " + database
                                + (ownsTables ? "" : ", ")) + (ownsTables ? "" : "does not own the tables") + "): "
                                + "create it as the tables' owner (" + create + ")");
                    }
                    return;
                }
                if (rs.getBoolean(1)) {
                    problems.add("PostgreSQL publication " + publication + " is FOR ALL TABLES, which "
                            + "publication.autocreate.mode=filtered refuses: DROP PUBLICATION " + publication + "; "
                            + create);
                    return;
                }
                boolean ownsPublication = rs.getBoolean(2);
                Set<String> present = new TreeSet<>();
                try (PreparedStatement t = c.prepareStatement(
                        "SELECT schemaname || '.' || tablename FROM pg_publication_tables WHERE pubname = ?")) {
                    t.setString(1, publication);
                    try (ResultSet tables = t.executeQuery()) {
                        while (tables.next()) {
                            present.add(tables.getString(1));
                        }
                    }
                }
                if (!present.equals(new TreeSet<>(wanted)) && !(ownsPublication && ownsTables)) {
                    Set<String> tables = new LinkedHashSet<>(wanted);
                    problems.add("PostgreSQL publication " + publication + " lists " + (present.isEmpty() ? "no tables"
                            : String.join(", ", present)) + ", not the captured tables, and user " + user
                            + " may not change it (the connector would run ALTER PUBLICATION): as its owner run "
                            + "ALTER PUBLICATION " + publication + " SET TABLE " + String.join(", ", tables));
                }
            }
        }
    }

    private static boolean flag(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private static String scalar(Connection c, String sql) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql); ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }
}
