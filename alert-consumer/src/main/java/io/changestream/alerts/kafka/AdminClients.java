package io.changestream.alerts.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** Admin clients from the service's Kafka client properties: the ones an admin client knows, and its own id. */
public final class AdminClients {

    private AdminClients() {
    }

    /** An admin client with the admin properties of {@code kafka} (bootstrap, security…) and {@code clientId}. */
    public static Admin create(Map<String, Object> kafka, String clientId) {
        Map<String, Object> props = new HashMap<>();
        kafka.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                props.put(k, v);
            }
        });
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        return Admin.create(props);
    }
}
