package io.changestream.ops.dev;

import io.changestream.ops.OpsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The demo subscription both {@code dev} and {@code demo} apply: every table change to the demo webhook sink. */
public final class DemoSubscription {

    /** Its name, as listed by {@code subscriptions list}. */
    public static final String NAME = "demo-table-changes";

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

    /** Writes {@link #json} to {@code dir/demo-subscription.json} and returns the file. */
    public static Path write(Path dir, String webhookUrl) {
        Path file = dir.resolve("demo-subscription.json");
        try {
            Files.createDirectories(dir);
            Files.writeString(file, json(webhookUrl));
        } catch (IOException e) {
            throw new OpsException("cannot write " + file + ": " + e.getMessage(), e);
        }
        return file;
    }
}
