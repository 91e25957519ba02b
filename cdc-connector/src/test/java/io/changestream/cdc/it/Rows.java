package io.changestream.cdc.it;

/** JSON of the platform's change_event and pipeline status rows, for the integration tests. */
public final class Rows {

    private Rows() {
    }

    public static String changeEvent(String id, String eventType, String entityType, String entityId, long timestamp,
                                     String extra) {
        return "{\"id\":\"" + id + "\",\"eventType\":\"" + eventType + "\",\"entityType\":\"" + entityType
                + "\",\"entityId\":\"" + entityId + "\",\"entityFullyQualifiedName\":\"svc.db." + entityId
                + "\",\"userName\":\"admin\",\"timestamp\":" + timestamp + ",\"previousVersion\":0.1,"
                + "\"currentVersion\":0.2" + extra + "}";
    }

    public static String status(String fqn, String runId, String state, long timestamp) {
        return "{\"pipelineFqn\":\"" + fqn + "\",\"runId\":\"" + runId + "\",\"pipelineState\":\"" + state
                + "\",\"startDate\":" + (timestamp - 100) + ",\"timestamp\":" + timestamp
                + ("success".equals(state) ? ",\"endDate\":" + timestamp : "") + "}";
    }

    /** A SQL string literal. */
    public static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
