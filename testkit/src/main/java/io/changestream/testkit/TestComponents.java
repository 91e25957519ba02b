package io.changestream.testkit;

import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Which implementation of each shared test component a test JVM runs: the in-JVM default ({@code embedded}: the KRaft
 * broker, zonky PostgreSQL, the Debian MariaDB server) or a Testcontainers module ({@code testcontainers}), chosen per
 * component by the system property {@code changestream.test.<component>} or the variable
 * {@code CHANGESTREAM_TEST_<COMPONENT>}. Asking for Testcontainers where it cannot run fails at once with the reason;
 * nothing falls back silently. Stateless; called from the test thread that starts a component.
 */
public final class TestComponents {

    /** A component the harness can start either way. */
    public enum Component {
        /** The Kafka broker ({@link Brokers}). */
        KAFKA,
        /** PostgreSQL with logical decoding ({@link PostgresDatabase}). */
        POSTGRES,
        /** MariaDB with a ROW binlog ({@link MariaDbServer}). */
        MARIADB;

        /** The system property that selects it, e.g. {@code changestream.test.kafka}. */
        public String setting() {
            return "changestream.test." + name().toLowerCase(Locale.ROOT);
        }

        /** The environment variable read when the property is unset, e.g. {@code CHANGESTREAM_TEST_KAFKA}. */
        public String env() {
            return "CHANGESTREAM_TEST_" + name();
        }
    }

    /** Where a component runs. */
    public enum Kind {
        /** In this JVM or as a local child process, no Docker (the default). */
        EMBEDDED,
        /** A Testcontainers module in a Docker engine. */
        TESTCONTAINERS
    }

    private TestComponents() {
    }

    /**
     * The kind selected for {@code component} from the system properties and the environment, checked: for
     * {@link Kind#TESTCONTAINERS} Testcontainers must be on the classpath and a Docker engine reachable.
     *
     * @throws HarnessException for an unknown value, or Testcontainers asked for where it cannot run
     */
    public static Kind require(Component component) {
        return require(component, System::getProperty, System::getenv, TestComponents::dockerReachable);
    }

    static Kind require(Component component, UnaryOperator<String> properties, UnaryOperator<String> env,
                        BooleanSupplier docker) {
        Kind kind = selected(component, properties, env);
        if (kind == Kind.TESTCONTAINERS) {
            if (!testcontainersOnClasspath()) {
                throw new HarnessException(component.setting() + "=testcontainers was requested, but Testcontainers "
                        + "is not on the test classpath: pass the setting to Maven itself (mvn -D"
                        + component.setting() + "=testcontainers …), which activates the parent pom's profile that "
                        + "adds it");
            }
            if (!docker.getAsBoolean()) {
                throw new HarnessException(component.setting() + "=testcontainers was requested, but no Docker "
                        + "engine is reachable (DOCKER_HOST, ~/.testcontainers.properties, /var/run/docker.sock): "
                        + "start one, or drop the setting to run the in-JVM " + component.name().toLowerCase(Locale.ROOT)
                        + " (the default)");
            }
        }
        return kind;
    }

    static Kind selected(Component component, UnaryOperator<String> properties, UnaryOperator<String> env) {
        String value = properties.apply(component.setting());
        String from = component.setting();
        if (value == null || value.isBlank()) {
            value = env.apply(component.env());
            from = component.env();
        }
        if (value == null || value.isBlank()) {
            return Kind.EMBEDDED;
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "embedded":
                return Kind.EMBEDDED;
            case "testcontainers":
                return Kind.TESTCONTAINERS;
            default:
                throw new HarnessException("unknown " + from + "='" + value + "' (expected embedded or testcontainers)");
        }
    }

    static boolean testcontainersOnClasspath() {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, TestComponents.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static boolean dockerReachable() {
        return Containers.dockerAvailable();
    }
}
