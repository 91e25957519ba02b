package io.changestream.testkit;

import java.util.HashMap;
import java.util.Map;

/**
 * A private single-node broker whose client listener ({@code EXTERNAL}) accepts only SASL_PLAINTEXT with the PLAIN
 * mechanism, started through testkit's {@link Brokers#start(Map)} with listener overrides (the controller listener
 * stays PLAINTEXT). Users: {@link #USER}/{@link #PASSWORD} and the inter-broker {@code admin}. No authorizer. The
 * caller closes it.
 */
public final class SaslBroker {

    public static final String USER = "changestream";
    public static final String PASSWORD = "cs-sasl-secret-4711";
    private static final String ADMIN_PASSWORD = "admin-sasl-secret";

    private SaslBroker() {
    }

    public static KafkaBroker start() {
        return Brokers.start(Map.of(
                "listener.security.protocol.map", "EXTERNAL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
                "sasl.enabled.mechanisms", "PLAIN",
                "sasl.mechanism.inter.broker.protocol", "PLAIN",
                "listener.name.external.plain.sasl.jaas.config", PLAIN + " username=\"admin\" password=\""
                        + ADMIN_PASSWORD + "\" user_admin=\"" + ADMIN_PASSWORD + "\" user_" + USER + "=\"" + PASSWORD
                        + "\";"));
    }

    private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule required";

    /** The JAAS line of a PLAIN client. */
    public static String jaas(String user, String password) {
        return PLAIN + " username=\"" + user + "\" password=\"" + password + "\";";
    }

    /** Client properties (bootstrap, SASL_PLAINTEXT, PLAIN, JAAS) for {@code user}. */
    public static Map<String, Object> client(KafkaBroker broker, String user, String password) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", broker.bootstrapServers());
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "PLAIN");
        props.put("sasl.jaas.config", jaas(user, password));
        return props;
    }
}
