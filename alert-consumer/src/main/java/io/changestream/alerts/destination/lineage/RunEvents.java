package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.impact.Impact;
import io.changestream.alerts.platform.PlatformNames;
import io.changestream.topics.model.ChangeDescription;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.serde.Json;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineage.RunEvent.EventType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Maps a pipeline run status to an OpenLineage RunEvent. Stateless; any thread.
 *
 * <ul>
 *   <li>job = (namespace, pipeline FQN); run = the run id (a name-based UUID of {@code fqn/runId} when it is not a
 *       UUID, so every instance derives the same one); event time = end date for terminal states, else start date,
 *       else the status's timestamp.</li>
 *   <li>datasets, with the platform's lineage (issue 28): the assets the pipeline writes, as the impact resolver
 *       found them (decision 2801); without it:</li>
 *   <li>datasets: an ingestion pipeline reads the metadata of its service and writes it into the platform. Its FQN
 *       is {@code <service>.<pipeline>}, so the input is the service (namespace and name = the service name, the
 *       whole service: the status does not say which of its assets were read) and the output is the same service
 *       in the platform's catalog (namespace = the platform URL, name = the service name). An FQN without a
 *       service part has no datasets.</li>
 *   <li>facets: {@code jobType} (BATCH, integration OPENMETADATA, jobType INGESTION_PIPELINE),
 *       {@code processing_engine} (changestream, which observed the run and reports it, with the OpenLineage client
 *       version as the adapter), {@code nominalTime} (the status's {@code timestamp}: the platform's "execution
 *       date", the scheduled time of the run), and {@code errorMessage} on FAIL.</li>
 * </ul>
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

    /** The integration named in {@code jobType}. */
    public static final String INTEGRATION = "OPENMETADATA";
    /** The job type named in {@code jobType}. */
    public static final String JOB_TYPE = "INGESTION_PIPELINE";
    /** The engine named in {@code processing_engine}. */
    public static final String ENGINE = "changestream";

    private static final String ENGINE_VERSION = version(RunEvents.class, "0.1.0-SNAPSHOT");
    private static final String CLIENT_VERSION = version(OpenLineage.class, "unknown");

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

    /**
     * The service of a pipeline FQN: its first part, unquoted ({@code "my.svc".ingest} → {@code my.svc}), or null
     * when the FQN has one part only.
     */
    public static String serviceName(String pipelineFqn) {
        List<String> parts = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        boolean quoted = false;
        for (char c : pipelineFqn.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == '.' && !quoted) {
                parts.add(part.toString());
                part.setLength(0);
            } else {
                part.append(c);
            }
        }
        parts.add(part.toString());
        return parts.size() < 2 || parts.get(0).isBlank() ? null : parts.get(0);
    }

    /** The RunEvent of a status, without the platform's lineage (the service as input and output). */
    public static OpenLineage.RunEvent of(PipelineRunStatus status, LineageSettings settings) {
        return of(status, settings, null, null, Set.of(), 0);
    }

    /**
     * The RunEvent of a status with what the platform knows of the pipeline: with an {@code assets} impact that
     * is {@link Impact.Status#RESOLVED} and names outputs, the datasets are those assets (input: namespace the
     * service, name the asset's FQN, as the source system holds it; output: the same asset in the platform's
     * catalog); else the service, as {@link #of(PipelineRunStatus, LineageSettings)}. With a {@code facet} impact
     * (FAIL and ABORT: {@code impact.states}) the run carries {@link ImpactRunFacet}, limited to {@code tiers}.
     */
    public static OpenLineage.RunEvent of(PipelineRunStatus status, LineageSettings settings, Impact assets,
                                          Impact facet, Set<String> tiers, int downstreamDepth) {
        OpenLineage ol = new OpenLineage(settings.producer());
        long millis = status.state().isTerminal() && status.endDate() != null ? status.endDate()
                : status.startDate() != null && !status.state().isTerminal() ? status.startDate() : status.timestamp();
        OpenLineage.RunFacetsBuilder runFacets = ol.newRunFacetsBuilder()
                .processing_engine(ol.newProcessingEngineRunFacet(ENGINE_VERSION, ENGINE, CLIENT_VERSION))
                .nominalTime(ol.newNominalTimeRunFacet(utc(status.timestamp()), null));
        if (status.state() == PipelineState.FAILED) {
            runFacets.errorMessage(ol.newErrorMessageRunFacet(errorMessage(status), "PYTHON", null));
        }
        if (facet != null) {
            runFacets.put(ImpactRunFacet.NAME, new ImpactRunFacet(settings.producer(), facet.limitedTo(tiers), tiers,
                    downstreamDepth));
        }
        String service = serviceName(status.pipelineFqn());
        boolean known = assets != null && assets.status() == Impact.Status.RESOLVED && !assets.outputs().isEmpty();
        List<OpenLineage.InputDataset> inputs = new ArrayList<>();
        List<OpenLineage.OutputDataset> outputs = new ArrayList<>();
        if (known) {
            String source = service != null ? service : status.pipelineFqn();
            for (Impact.Asset a : assets.outputs()) {
                inputs.add(ol.newInputDatasetBuilder().namespace(source).name(a.fqn()).build());
                outputs.add(ol.newOutputDatasetBuilder().namespace(settings.platformUrl().toString()).name(a.fqn())
                        .build());
            }
        } else if (service != null) {
            inputs.add(ol.newInputDatasetBuilder().namespace(service).name(service).build());
            outputs.add(ol.newOutputDatasetBuilder().namespace(settings.platformUrl().toString()).name(service)
                    .build());
        }
        return ol.newRunEventBuilder()
                .eventType(eventType(status.state()))
                .eventTime(utc(millis))
                .run(ol.newRunBuilder().runId(runUuid(status.pipelineFqn(), status.runId()))
                        .facets(runFacets.build()).build())
                .job(ol.newJobBuilder().namespace(settings.namespace()).name(status.pipelineFqn())
                        .facets(ol.newJobFacetsBuilder()
                                .jobType(ol.newJobTypeJobFacet("BATCH", INTEGRATION, JOB_TYPE, null)).build())
                        .build())
                .inputs(inputs)
                .outputs(outputs)
                .build();
    }

    /**
     * The message of a failed run. The status record on {@code pipeline-status} carries the run's state and times,
     * not the platform's step failures, so the message says what is known: pipeline, run and when it failed.
     */
    static String errorMessage(PipelineRunStatus status) {
        return "ingestion pipeline " + status.pipelineFqn() + " run " + status.runId() + " failed"
                + (status.endDate() != null ? " at " + Instant.ofEpochMilli(status.endDate()) : "");
    }

    /**
     * The status as the platform's change event for it, so that a subscription's filters apply to run statuses:
     * entityType {@code ingestionPipeline}, FQN = the pipeline, {@code pipelineStatus} updated to the status
     * ({@code matchIngestionPipelineState}, {@code matchAnySource}, {@code matchAnyEntityFqn}… see it as the
     * platform's filters do).
     */
    public static ChangeEvent filterable(PipelineRunStatus status) {
        ObjectNode pipelineStatus = Json.mapper().createObjectNode()
                .put("runId", status.runId())
                .put("pipelineState", PlatformNames.RUN_STATES.name(status.state()))
                .put("timestamp", status.timestamp());
        if (status.startDate() != null) {
            pipelineStatus.put("startDate", status.startDate());
        }
        if (status.endDate() != null) {
            pipelineStatus.put("endDate", status.endDate());
        }
        ObjectNode entity = Json.mapper().createObjectNode().put("fullyQualifiedName", status.pipelineFqn());
        entity.set("pipelineStatuses", pipelineStatus);
        String id = UUID.nameUUIDFromBytes((status.key() + "/" + status.state()).getBytes(StandardCharsets.UTF_8))
                .toString();
        return new ChangeEvent(id, "entityUpdated", "ingestionPipeline", status.pipelineFqn(), null,
                status.pipelineFqn(), null, null, null, null, status.timestamp(),
                new ChangeDescription(List.of(), List.of(new FieldChange("pipelineStatus", null, pipelineStatus)),
                        List.of(), null), entity, null, null);
    }

    private static ZonedDateTime utc(long millis) {
        return ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    private static String version(Class<?> type, String fallback) {
        String v = type.getPackage() == null ? null : type.getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? fallback : v;
    }
}
