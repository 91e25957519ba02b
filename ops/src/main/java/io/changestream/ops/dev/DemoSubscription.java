package io.changestream.ops.dev;

import io.changestream.ops.OpsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo subscription both {@code dev} and {@code demo} apply: every table change to the demo webhook sink; and the
 * lineage subscription {@code dev} applies too: every finished demo run as an OpenLineage event to the sink.
 */
public final class DemoSubscription {

    /** Its name, as listed by {@code subscriptions list}. */
    public static final String NAME = "demo-table-changes";

    /** The lineage subscription's name. */
    public static final String LINEAGE_NAME = "demo-run-lineage";

    private DemoSubscription() {
    }

    /** The platform's CreateEventSubscription JSON delivering to {@code webhookUrl}. */
    public static String json(String webhookUrl) {
        return """
                {"name": "%s", "displayName": "Demo: every table change",
                 "description": "Created by changestream dev/demo: posts every table change to the demo webhook sink",
                 "alertType": "Notification", "trigger": {"triggerType": "RealTime"}, "resources": ["table"],
                 "input": {"filters": [], "actions": []},
                 "destinations": [{"category": "External", "type": "Webhook", "timeout": 5, "readTimeout": 5,
                                   "config": {"endpoint": "%s"}}],
                 "retries": 3, "provider": "user", "enabled": true}
                """.formatted(NAME, webhookUrl);
    }

    /** The platform's CreateEventSubscription JSON sending finished runs as OpenLineage events to {@code url}. */
    public static String lineageJson(String url) {
        return """
                {"name": "%s", "displayName": "Demo: finished runs as OpenLineage events",
                 "description": "Created by changestream dev: posts every finished demo run to the sink's lineage path",
                 "alertType": "Observability", "resources": ["ingestionPipeline"],
                 "input": {"filters": [], "actions": [{"name": "GetIngestionPipelineStatusUpdates", "effect": "include",
                   "arguments": [{"name": "ingestionPipelineStateList", "input": ["success", "failed"]}]}]},
                 "destinations": [{"category": "External", "type": "OpenLineage", "config": {"endpoint": "%s"}}],
                 "retries": 3, "provider": "user", "enabled": true}
                """.formatted(LINEAGE_NAME, url);
    }

    /** Writes {@link #json} to {@code dir/demo-subscription.json} and returns the file. */
    public static Path write(Path dir, String webhookUrl) {
        return writeFile(dir.resolve("demo-subscription.json"), json(webhookUrl));
    }

    /** Writes {@link #lineageJson} to {@code dir/demo-lineage-subscription.json} and returns the file. */
    public static Path writeLineage(Path dir, String url) {
        return writeFile(dir.resolve("demo-lineage-subscription.json"), lineageJson(url));
    }

    private static Path writeFile(Path file, String json) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, json);
        } catch (IOException e) {
            throw new OpsException("cannot write " + file + ": " + e.getMessage(), e);
        }
        return file;
    }
}
