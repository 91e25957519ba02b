package io.changestream.ops.kafka;

import io.changestream.ops.UsageException;
import io.changestream.settings.SecretKeys;
import io.changestream.settings.SettingsReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * The Kafka client properties every client of a changestream process shares (bootstrap servers, and
 * {@code security.protocol}, {@code sasl.*}, {@code ssl.*} and any other client property a production cluster needs).
 * Immutable; safe to share between threads.
 *
 * <p>Sources, later ones winning: a properties file (Kafka tools' {@code --command-config}), environment variables
 * {@code CHANGESTREAM_KAFKA_<NAME>} where {@code <NAME>} is the property upper-cased with dots as underscores (the
 * pass-through form of {@link SettingsReader})
 * ({@code CHANGESTREAM_KAFKA_SASL_JAAS_CONFIG} → {@code sasl.jaas.config}), then an explicit bootstrap server.
 *
 * @param properties the client properties, {@code bootstrap.servers} included
 */
public record KafkaClientProperties(Map<String, String> properties) {

    /** Prefix of the environment variables that carry Kafka client properties. */
    public static final String ENV_PREFIX = "CHANGESTREAM_KAFKA_";

    public KafkaClientProperties {
        Objects.requireNonNull(properties, "properties");
        String bootstrap = properties.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new UsageException("bootstrap.servers is not set (use --bootstrap-server, "
                    + ENV_PREFIX + "BOOTSTRAP_SERVERS or the config file)");
        }
        properties = Map.copyOf(properties);
    }

    /**
     * Properties from {@code configFile} (may be null), then {@code env}, then {@code bootstrapServers} (may be null).
     */
    public static KafkaClientProperties resolve(Path configFile, Map<String, String> env, String bootstrapServers) {
        Map<String, String> props = new TreeMap<>();
        if (configFile != null) {
            props.putAll(readFile(configFile));
        }
        props.putAll(fromEnv(env));
        if (bootstrapServers != null && !bootstrapServers.isBlank()) {
            props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        }
        return new KafkaClientProperties(props);
    }

    /** The {@code CHANGESTREAM_KAFKA_*} variables of {@code env} as client properties. */
    public static Map<String, String> fromEnv(Map<String, String> env) {
        Map<String, String> props = new TreeMap<>();
        env.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX) && name.length() > ENV_PREFIX.length()) {
                props.put(SettingsReader.keyOf(name.substring(ENV_PREFIX.length()), List.of(), List.of()), value);
            }
        });
        return props;
    }

    /** Reads a Java properties file of client properties; a missing or unreadable file is a usage error. */
    public static Map<String, String> readFile(Path file) {
        try {
            return SettingsReader.readFile(file);
        } catch (IOException e) {
            throw new UsageException("cannot read Kafka client config " + file + ": " + e.getMessage());
        }
    }

    /** The bootstrap servers. */
    public String bootstrapServers() {
        return properties.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
    }

    /** These properties plus {@code extra} (extra wins), as the {@code Map<String, Object>} clients take. */
    public Map<String, Object> with(Map<String, ?> extra) {
        Map<String, Object> map = new TreeMap<>(properties);
        map.putAll(extra);
        return map;
    }

    /** The properties with every secret value ({@link SecretKeys}) masked, for printing. */
    public Map<String, String> masked() {
        Map<String, String> map = new TreeMap<>();
        properties.forEach((k, v) -> map.put(k, SecretKeys.shown(k, v)));
        return map;
    }

    @Override
    public String toString() {
        return "KafkaClientProperties" + masked();
    }
}
