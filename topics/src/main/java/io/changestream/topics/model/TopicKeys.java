package io.changestream.topics.model;

import java.util.Objects;

/**
 * Builds the Kafka keys of changestream's topics. Keys are plain UTF-8 strings; composite keys join their parts
 * with {@code /}. Parts must not be null. Stateless; any thread.
 */
public final class TopicKeys {

    /** Separator of composite keys. */
    public static final String SEPARATOR = "/";

    private TopicKeys() {
    }

    /** Key of {@code changes}: the entity id. */
    public static String change(ChangeEvent event) {
        return event.entityId();
    }

    /** Key of {@code pipeline-status} and {@code log-chunks}: {@code pipelineFqn/runId}. */
    public static String pipelineRun(String pipelineFqn, String runId) {
        return join(pipelineFqn, runId);
    }

    /** Key of {@code alert-ledger}: {@code groupId/subscriptionId/eventId}. */
    public static String ledger(String groupId, String subscriptionId, String eventId) {
        return join(groupId, subscriptionId, eventId);
    }

    /** Key of {@code alert-dlq}: {@code subscriptionId/eventId}. */
    public static String dlq(String subscriptionId, String eventId) {
        return join(subscriptionId, eventId);
    }

    /** Key of {@code cdc-dlq}: {@code sourceTable/logPosition}. */
    public static String cdcDeadLetter(String sourceTable, String logPosition) {
        return join(sourceTable, logPosition);
    }

    /**
     * The {@code [pipelineFqn, runId]} of a {@link #pipelineRun(String, String)} key. Splits at the last separator:
     * run ids never contain one, FQNs might.
     *
     * @throws IllegalArgumentException when the key has no separator
     */
    public static String[] splitPipelineRun(String key) {
        int at = key.lastIndexOf(SEPARATOR);
        if (at <= 0 || at == key.length() - 1) {
            throw new IllegalArgumentException("key '" + key + "' is not pipelineFqn/runId");
        }
        return new String[] {key.substring(0, at), key.substring(at + 1)};
    }

    private static String join(String... parts) {
        for (int i = 0; i < parts.length; i++) {
            Objects.requireNonNull(parts[i], "key part " + i + " is null");
        }
        return String.join(SEPARATOR, parts);
    }
}
