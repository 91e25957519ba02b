package io.changestream.alerts.destination.lineage;

import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineage.RunEvent.EventType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.UUID;

/**
 * Maps a pipeline run status to an OpenLineage RunEvent: job = (namespace, pipeline FQN), run = the run id (a
 * name-based UUID derived from {@code fqn/runId} when the run id is not a UUID, so every instance derives the same
 * one), event time = end date for terminal states, else start date, else the record's timestamp. Stateless.
 *
 * <table>
 * <caption>State mapping</caption>
 * <tr><th>platform</th><th>OpenLineage</th></tr>
 * <tr><td>queued</td><td>START</td></tr><tr><td>running</td><td>RUNNING</td></tr>
 * <tr><td>success, partialSuccess</td><td>COMPLETE</td></tr><tr><td>failed</td><td>FAIL</td></tr>
 * <tr><td>stopped</td><td>ABORT</td></tr>
 * </table>
 */
public final class RunEvents {

    private RunEvents() {
    }

    /** The OpenLineage event type of a run state. */
    public static EventType eventType(PipelineState state) {
        return switch (state) {
            case QUEUED -> EventType.START;
            case RUNNING -> EventType.RUNNING;
            case SUCCESS, PARTIAL_SUCCESS -> EventType.COMPLETE;
            case FAILED -> EventType.FAIL;
            case STOPPED -> EventType.ABORT;
        };
    }

    /** The run UUID of a run id. */
    public static UUID runUuid(String pipelineFqn, String runId) {
        try {
            return UUID.fromString(runId);
        } catch (IllegalArgumentException notAUuid) {
            return UUID.nameUUIDFromBytes((pipelineFqn + "/" + runId).getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The RunEvent of a status. */
    public static OpenLineage.RunEvent of(PipelineRunStatus status, LineageSettings settings) {
        OpenLineage ol = new OpenLineage(settings.producer());
        long millis = status.state().isTerminal() && status.endDate() != null ? status.endDate()
                : status.startDate() != null && !status.state().isTerminal() ? status.startDate() : status.timestamp();
        return ol.newRunEventBuilder()
                .eventType(eventType(status.state()))
                .eventTime(ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC))
                .run(ol.newRunBuilder().runId(runUuid(status.pipelineFqn(), status.runId())).build())
                .job(ol.newJobBuilder().namespace(settings.namespace()).name(status.pipelineFqn()).build())
                .inputs(List.of())
                .outputs(List.of())
                .build();
    }
}
