package io.changestream.testkit;

import java.util.Map;

/**
 * Chooses and shares the Kafka broker of a test JVM.
 *
 * <p>The implementation is selected by the system property {@code changestream.test.kafka} (or the
 * environment variable {@code CHANGESTREAM_TEST_KAFKA}): {@code embedded} (default) starts the
 * in-JVM KRaft broker; {@code testcontainers} starts Testcontainers' Kafka module and fails at once
 * where it cannot run (no Docker engine, or Testcontainers not on the classpath): see
 * {@link TestComponents}. Nothing falls back silently.
 */
public final class Brokers {

    /** Setting that selects the broker implementation. */
    public static final String SETTING = "changestream.test.kafka";

    /**
     * How long the JVM-exit hook waits for the shared broker to stop. The test fork's own exit timeout
     * (Surefire's {@code forkedProcessExitTimeoutInSeconds}, 30 s) must not be spent on a slow broker
     * shutdown on a loaded machine: past this budget the exiting JVM simply drops the broker.
     */
    static final java.time.Duration SHUTDOWN_BUDGET = java.time.Duration.ofSeconds(10);

    private static KafkaBroker shared;

    private Brokers() {
    }

    /**
     * The broker shared by every test class of this JVM, started on first use and stopped when the
     * JVM exits (its data directory is deleted by that stop, after the broker is down: nothing else deletes it
     * while it runs). Tests isolate themselves with their own topic and group names.
     */
    public static synchronized KafkaBroker shared() {
        if (shared == null) {
            KafkaBroker broker = start(Map.of());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> closeWithin(broker, SHUTDOWN_BUDGET),
                    "testkit-kafka-stop"));
            shared = broker;
        }
        return shared;
    }

    /** A broker of its own for a test that restarts or reconfigures it; the caller closes it. */
    public static KafkaBroker start(Map<String, String> brokerOverrides) {
        if (TestComponents.require(TestComponents.Component.KAFKA) == TestComponents.Kind.TESTCONTAINERS) {
            return Containers.kafka(brokerOverrides);
        }
        return EmbeddedKafkaBroker.start(brokerOverrides);
    }

    private static void closeWithin(KafkaBroker broker, java.time.Duration budget) {
        Thread closer = new Thread(broker::close, "testkit-kafka-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(budget.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
