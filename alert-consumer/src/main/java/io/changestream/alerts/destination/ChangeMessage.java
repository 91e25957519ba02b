package io.changestream.alerts.destination;

import io.changestream.alerts.impact.Impact;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.model.PipelineRunStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The readable content of a notification, independent of the chat format: a title, the entity, who, when, the
 * changes and a link to the entity on the platform. Immutable.
 *
 * @param title    e.g. {@code "table updated: svc.db.sales.orders"}
 * @param entity   entity type and FQN
 * @param who      the user (and impersonating bot)
 * @param when     ISO-8601 UTC time of the change
 * @param changes  one line per field change, bounded, "… and N more" last
 * @param link     the entity's page on the platform
 */
public record ChangeMessage(String title, String entity, String who, String when, List<String> changes,
                            String link) {

    public ChangeMessage {
        changes = List.copyOf(changes);
    }

    /** The message of a change event. */
    public static ChangeMessage of(ChangeEvent event, MessageSettings settings) {
        String fqn = event.entityFullyQualifiedName() != null ? event.entityFullyQualifiedName() : event.entityId();
        String who = event.userName() == null ? "unknown"
                : event.userName() + (event.impersonatedBy() == null ? "" : " (via " + event.impersonatedBy() + ")");
        List<String> lines = new ArrayList<>();
        if (event.changeDescription() != null) {
            event.changeDescription().fieldsAdded().forEach(c -> lines.add(line("Added", c, settings)));
            event.changeDescription().fieldsUpdated().forEach(c -> lines.add(line("Updated", c, settings)));
            event.changeDescription().fieldsDeleted().forEach(c -> lines.add(line("Deleted", c, settings)));
        }
        return new ChangeMessage(event.entityType() + " " + verb(event.eventType()) + ": " + fqn,
                event.entityType() + " " + fqn, who, Instant.ofEpochMilli(event.timestamp()).toString(),
                bounded(lines, settings), link(settings, event.entityType(), fqn));
    }

    /** The message of a pipeline run status. */
    public static ChangeMessage of(PipelineRunStatus run, MessageSettings settings) {
        return new ChangeMessage("ingestion pipeline run " + run.state().name().toLowerCase(java.util.Locale.ROOT)
                + ": " + run.pipelineFqn(), "ingestionPipeline " + run.pipelineFqn(), "pipeline run " + run.runId(),
                Instant.ofEpochMilli(run.timestamp()).toString(), List.of(),
                link(settings, "ingestionPipeline", run.pipelineFqn()));
    }

    /**
     * The message of a failed run to the owners of what it hurts: the impacted assets (the first {@code top}, the rest
     * counted), or why they are not known.
     */
    public static ChangeMessage of(PipelineRunStatus run, MessageSettings settings, Impact impact, int top) {
        ChangeMessage plain = of(run, settings);
        String count = impact.status() == Impact.Status.RESOLVED ? " — " + impact.total() + " impacted asset"
                + (impact.total() == 1 ? "" : "s") : impact.status() == Impact.Status.UNAVAILABLE
                ? " — impact unknown" : "";
        return new ChangeMessage(plain.title() + count, plain.entity(), plain.who(), plain.when(),
                impact.lines(top), plain.link());
    }

    /** The changes as one text block, lines separated by newlines. */
    public String changesText() {
        return changes.isEmpty() ? "No field changes recorded." : String.join("\n", changes);
    }

    private static String verb(String eventType) {
        return switch (eventType) {
            case ChangeEvent.ENTITY_CREATED -> "created";
            case ChangeEvent.ENTITY_UPDATED, ChangeEvent.ENTITY_FIELDS_CHANGED -> "updated";
            case ChangeEvent.ENTITY_SOFT_DELETED -> "soft-deleted";
            case ChangeEvent.ENTITY_DELETED -> "deleted";
            case ChangeEvent.ENTITY_RESTORED -> "restored";
            default -> eventType;
        };
    }

    private static String line(String kind, FieldChange change, MessageSettings settings) {
        StringBuilder line = new StringBuilder(kind).append(' ').append(change.name());
        if (change.oldValue() != null && !change.oldValue().isNull()) {
            line.append(": ").append(value(change.oldValue(), settings));
            line.append(change.newValue() != null && !change.newValue().isNull()
                    ? " → " + value(change.newValue(), settings) : "");
        } else if (change.newValue() != null && !change.newValue().isNull()) {
            line.append(": ").append(value(change.newValue(), settings));
        }
        return line.toString();
    }

    private static String value(JsonNode node, MessageSettings settings) {
        String text = node.isTextual() ? node.asText() : node.toString();
        return text.length() <= settings.maxValueChars() ? text : text.substring(0, settings.maxValueChars()) + "…";
    }

    private static List<String> bounded(List<String> lines, MessageSettings settings) {
        if (lines.size() <= settings.maxChangeLines()) {
            return lines;
        }
        List<String> out = new ArrayList<>(lines.subList(0, settings.maxChangeLines()));
        out.add("… and " + (lines.size() - settings.maxChangeLines()) + " more");
        return out;
    }

    private static String link(MessageSettings settings, String entityType, String fqn) {
        String base = settings.platformUrl().toString().replaceAll("/+$", "");
        return base + "/" + entityType + "/" + URLEncoder.encode(fqn, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
