package io.changestream.cdc;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@link CdcConfig} settings that capture a Postgres on this machine into a single-broker cluster: the ones every
 * test, benchmark and the dev stack writes alike. {@link #settings(String, String)} returns a fresh, mutable map of
 * <ul>
 *   <li>{@code database.kind=postgres}, {@code database.host}, {@code database.port}, {@code database.name},
 *       {@code database.user} and {@code database.password} (left out when {@link #password()} is null, e.g. trust
 *       authentication: the connector's default is empty);</li>
 *   <li>{@code kafka.bootstrap.servers} and {@code kafka.replication.factor=1} (one broker);</li>
 *   <li>{@code topic.namespace};</li>
 *   <li>{@code http.host=127.0.0.1} and {@code http.port=0} (loopback, any free port);</li>
 * </ul>
 * and {@link #settings(String, String, String)} adds a slot of its own: {@code postgres.slot.name} and
 * {@code postgres.publication.name} both the slot, {@code connector.name} the slot with {@code -} for {@code _}.
 * Everything else (poll and heartbeat intervals, {@code postgres.slot.drop.on.stop}, retries, masks, another HTTP
 * port) keeps the connector's default unless the caller puts it into the map. Every key is one {@link CdcConfig}
 * reads ({@code LocalPostgresCaptureTest}); the values are validated there, by {@link CdcConfig#fromMap}.
 *
 * @param host     database host
 * @param port     database port
 * @param database database name
 * @param user     user with replication rights
 * @param password the user's password; null leaves {@code database.password} out
 */
public record LocalPostgresCapture(String host, int port, String database, String user, String password) {

    public LocalPostgresCapture {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(user, "user");
    }

    /** The common settings (no slot: the connector's default slot, publication and name) for a caller to adjust. */
    public Map<String, String> settings(String bootstrapServers, String namespace) {
        Map<String, String> s = new HashMap<>();
        s.put("database.kind", "postgres");
        s.put("database.host", host);
        s.put("database.port", Integer.toString(port));
        s.put("database.name", database);
        s.put("database.user", user);
        if (password != null) {
            s.put("database.password", password);
        }
        s.put("kafka.bootstrap.servers", Objects.requireNonNull(bootstrapServers, "bootstrapServers"));
        s.put("kafka.replication.factor", "1");
        s.put("topic.namespace", Objects.requireNonNull(namespace, "namespace"));
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        return s;
    }

    /** The common settings with slot and publication {@code slot}, connector name {@code slot} with dashes. */
    public Map<String, String> settings(String bootstrapServers, String namespace, String slot) {
        Map<String, String> s = settings(bootstrapServers, namespace);
        s.put("postgres.slot.name", slot);
        s.put("postgres.publication.name", slot);
        s.put("connector.name", slot.replace('_', '-'));
        return s;
    }
}
