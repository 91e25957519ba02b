package io.changestream.cdc.prereq;

import io.changestream.cdc.CdcConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The MariaDB prerequisites of Debezium's MariaDB connector as this connector configures it: the binlog on
 * ({@code log_bin}), {@code binlog_format=ROW}, {@code binlog_row_image=FULL}, uncompressed events
 * ({@code log_bin_compress=OFF}), a server id other than the connector's {@code database.server.id}, and the grants
 * {@code SELECT} on both captured tables plus {@code RELOAD}, {@code SHOW DATABASES}, {@code REPLICATION SLAVE} and
 * {@code REPLICATION CLIENT} ({@code BINLOG MONITOR} since MariaDB 10.5) on {@code *.*}. Global variables are read,
 * not session ones: Debezium reads those. Runs on the capture thread.
 */
final class MariaDbPrerequisites {

    /** Global privileges and why the connector needs each. */
    private static final Map<String, String> GLOBAL = new LinkedHashMap<>();

    static {
        GLOBAL.put("RELOAD", "FLUSH TABLES WITH READ LOCK for the schema snapshot at first start");
        GLOBAL.put("SHOW DATABASES", "lists the databases for the schema snapshot");
        GLOBAL.put("REPLICATION SLAVE", "reads the binlog");
        GLOBAL.put("REPLICATION CLIENT", "SHOW MASTER STATUS and SHOW BINARY LOGS; BINLOG MONITOR on MariaDB 10.5+");
    }

    private MariaDbPrerequisites() {
    }

    static List<String> check(Connection c, CdcConfig config) throws SQLException {
        List<String> problems = new ArrayList<>();
        CdcConfig.Database db = config.database();
        Map<String, String> vars = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement("SHOW GLOBAL VARIABLES WHERE Variable_name IN "
                + "('log_bin', 'binlog_format', 'binlog_row_image', 'log_bin_compress', 'server_id')");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                vars.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
            }
        }
        if (!"ON".equalsIgnoreCase(vars.get("log_bin"))) {
            problems.add("MariaDB log_bin is " + vars.get("log_bin") + ": the server writes no binlog "
                    + "(my.cnf [mysqld] log_bin=mariadb-bin, restart)");
        }
        String format = vars.get("binlog_format");
        if (!"ROW".equalsIgnoreCase(format)) {
            problems.add("MariaDB binlog_format is " + format + ", needs ROW (SET GLOBAL binlog_format=ROW and "
                    + "binlog_format=ROW in my.cnf; sessions already open keep their format until they reconnect)");
        }
        String image = vars.get("binlog_row_image");
        if (image != null && !"FULL".equalsIgnoreCase(image)) {
            problems.add("MariaDB binlog_row_image is " + image + ", needs FULL (SET GLOBAL binlog_row_image=FULL "
                    + "and binlog_row_image=FULL in my.cnf)");
        }
        if ("ON".equalsIgnoreCase(vars.get("log_bin_compress"))) {
            problems.add("MariaDB log_bin_compress is ON: Debezium cannot read compressed binlog events "
                    + "(SET GLOBAL log_bin_compress=OFF and log_bin_compress=OFF in my.cnf)");
        }
        String serverId = vars.get("server_id");
        if (serverId != null && Long.toString(db.serverId()).equals(serverId.trim())) {
            problems.add("MariaDB server_id " + serverId + " is also this connector's database.server.id: a binlog "
                    + "reader needs an id no server or other reader uses (set database.server.id to another value, "
                    + "or leave it unset to derive one from instance.id)");
        }

        String account = account(c);
        List<String> lines = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SHOW GRANTS"); ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                lines.add(rs.getString(1));
            }
        }
        MariaDbGrants grants = MariaDbGrants.parse(lines);
        for (Map.Entry<String, String> e : GLOBAL.entrySet()) {
            if (!grants.global(e.getKey())) {
                problems.add("MariaDB user " + account + " lacks " + e.getKey() + " on *.* (" + e.getValue()
                        + "): GRANT " + e.getKey() + " ON *.* TO " + account);
            }
        }
        for (String table : List.of(config.transform().changeEventTable(), config.transform().pipelineStatusTable())) {
            if (!grants.on("SELECT", db.name(), table)) {
                problems.add("MariaDB user " + account + " lacks SELECT on " + db.name() + "." + table + ": GRANT "
                        + "SELECT ON " + db.name() + "." + table + " TO " + account);
            }
        }
        return problems;
    }

    /** {@code 'cdc'@'%'}: the account the server matched the login to. */
    private static String account(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT CURRENT_USER()"); ResultSet rs = s.executeQuery()) {
            rs.next();
            String current = rs.getString(1);
            int at = current.lastIndexOf('@');
            return at < 0 ? "'" + current + "'" : "'" + current.substring(0, at) + "'@'" + current.substring(at + 1)
                    + "'";
        }
    }
}
