package io.changestream.cdc.it;

import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.MariaDbServer;
import io.changestream.testkit.PostgresDatabase;
import java.util.HashMap;
import java.util.Map;

/** Connector settings for the test databases and broker (replication factor 1, fast heartbeats, any HTTP port). */
public final class Configs {

    private Configs() {
    }

    public static Map<String, String> postgres(PostgresDatabase pg, KafkaBroker broker, String namespace, String slot) {
        Map<String, String> s = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), namespace, slot);
        s.put("heartbeat.interval.ms", "1000");
        return s;
    }

    public static Map<String, String> mariadb(MariaDbServer db, KafkaBroker broker, String namespace, String name) {
        Map<String, String> s = common(broker, namespace, "mariadb", db.host(), db.port(), MariaDbServer.DATABASE,
                MariaDbServer.USER, MariaDbServer.PASSWORD);
        s.put("connector.name", name);
        return s;
    }

    private static Map<String, String> common(KafkaBroker broker, String namespace, String kind, String host, int port,
                                              String database, String user, String password) {
        Map<String, String> s = new HashMap<>();
        s.put("database.kind", kind);
        s.put("database.host", host);
        s.put("database.port", Integer.toString(port));
        s.put("database.name", database);
        s.put("database.user", user);
        s.put("database.password", password);
        s.put("kafka.bootstrap.servers", broker.bootstrapServers());
        s.put("kafka.replication.factor", "1");
        s.put("topic.namespace", namespace);
        s.put("heartbeat.interval.ms", "1000");
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        return s;
    }
}
