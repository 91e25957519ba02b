package io.changestream.alerts.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.CatalogTopic;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** Topics, configs, events and REST calls for the alert service's integration tests. */
final class AlertTestSupport {

    static final String TOKEN = "test-token-0123456789abcdef";
    private static final AtomicInteger SEQ = new AtomicInteger();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private AlertTestSupport() {
    }

    /** A fresh namespace, e.g. {@code it-e2e-3-}. */
    static String namespace(String name) {
        return "it-" + name + "-" + SEQ.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xffff) + ".";
    }

    /** The catalog of a namespace at replication factor 1 and {@code partitions} partitions of changes. */
    static TopicCatalog catalog(String namespace, int partitions) {
        return new TopicCatalog(namespace).withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, partitions);
    }

    /** Creates every topic of the catalog. */
    static void provision(KafkaBroker broker, TopicCatalog catalog) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
    }

    /** The settings of a test instance: fast retries and commits, private addresses allowed, any HTTP port. */
    static Map<String, String> settings(KafkaBroker broker, String namespace, String group) {
        Map<String, String> s = new HashMap<>();
        s.put("kafka.bootstrap.servers", broker.bootstrapServers());
        s.put("topics.namespace", namespace);
        s.put("group.id", group);
        s.put("http.host", "127.0.0.1");
        s.put("http.port", "0");
        s.put("admin.bearerToken", TOKEN);
        s.put("destinations.allowPrivateAddresses", "true");
        // the Slack/Teams/GChat receivers and GreenMail are local stand-ins, not the services whose limits the
        // defaults follow (RateLimitIT tests the limits themselves)
        s.put("destinations.rateLimit.email", "off");
        s.put("destinations.rateLimit.slack", "off");
        s.put("destinations.rateLimit.msTeams", "off");
        s.put("destinations.rateLimit.gChat", "off");
        s.put("runtime.lanes", "8");
        s.put("runtime.initialBackoff", "100");
        s.put("runtime.maxBackoff", "400");
        s.put("runtime.commitInterval", "200");
        s.put("runtime.revokeTimeout", "PT5S");
        s.put("runtime.closeTimeout", "PT15S");
        s.put("runtime.kafka.session.timeout.ms", "6000");
        s.put("runtime.kafka.heartbeat.interval.ms", "500");
        s.put("ledger.rebuildTimeout", "PT10S");
        s.put("subscriptions.startupTimeout", "PT20S");
        return s;
    }

    /** Points {@code settings}' e-mail at a local SMTP server on {@code port} (plain, no STARTTLS); returns them. */
    static Map<String, String> smtp(Map<String, String> settings, int port) {
        settings.put("smtp.host", "127.0.0.1");
        settings.put("smtp.port", Integer.toString(port));
        settings.put("smtp.startTls", "false");
        settings.put("smtp.from", "alerts@cs.test");
        return settings;
    }

    static AlertServiceConfig config(Map<String, String> settings) {
        return AlertServiceConfig.from(settings, Map.of());
    }

    /** A change event with a fresh id. */
    static ChangeEvent event(String eventType, String entityType, String entityId, String fqn) {
        return new ChangeEvent(UUID.randomUUID().toString(), eventType, entityType, entityId, null, fqn, 0.1, 0.2,
                "alice", null, System.currentTimeMillis(), null, null, null);
    }

    /** Produces events to {@code changes} keyed by entity id; waits for every ack. */
    static void produce(KafkaBroker broker, String topic, List<ChangeEvent> events) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(), new StringSerializer())) {
            for (ChangeEvent e : events) {
                producer.send(new ProducerRecord<>(topic, TopicKeys.change(e), Serdes.changeEvent().toJson(e)));
            }
            producer.flush();
        }
    }

    /** Produces run statuses to {@code pipeline-status}, keyed as the connector keys them; waits for the acks. */
    static void produceRuns(KafkaBroker broker, TopicCatalog catalog, List<PipelineRunStatus> statuses) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 20), new StringSerializer(), new StringSerializer())) {
            for (PipelineRunStatus s : statuses) {
                producer.send(new ProducerRecord<>(catalog.pipelineStatus().name(), s.key(),
                        Serdes.pipelineRunStatus().toJson(s)));
            }
            producer.flush();
        }
    }

    /** The settings of a cdc-connector capturing {@code pg} into namespace {@code ns} through replication slot {@code slot}. */
    static Map<String, String> cdcSettings(PostgresDatabase pg, KafkaBroker broker, String ns, String slot) {
        Map<String, String> s = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), ns, slot);
        s.put("heartbeat.interval.ms", "1000");
        s.put("poll.interval.ms", "10");
        s.put("postgres.slot.drop.on.stop", "true");
        return s;
    }

    /** The SQL inserting a pipeline run status row as the platform writes it ({@code entity_extension_time_series}). */
    static String statusRow(String fqn, String runId, String state) {
        long now = System.currentTimeMillis();
        return "INSERT INTO entity_extension_time_series (entityFQNHash, extension, jsonSchema, json) VALUES "
                + "('h-" + runId + "', 'ingestionPipeline.pipelineStatus', 'pipelineStatus', '{\"pipelineFqn\":\""
                + fqn + "\",\"runId\":\"" + runId + "\",\"pipelineState\":\"" + state + "\",\"startDate\":"
                + (now - 100) + ",\"timestamp\":" + now + ("failed".equals(state) ? ",\"endDate\":" + now : "")
                + "}'::jsonb)";
    }

    /** One HTTP answer. */
    record Answer(int status, String body) {
        JsonNode json() {
            try {
                return Json.mapper().readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + body, e);
            }
        }
    }

    /** Calls the service at {@code port}; {@code token} null sends no Authorization header. */
    static Answer call(int port, String method, String path, String body, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Answer call(int port, String method, String path, String body) {
        return call(port, method, path, body, TOKEN);
    }

    /** Creates a subscription through the REST API (the platform's CreateEventSubscription JSON); returns its id. */
    static String create(int port, String request) {
        Answer a = call(port, "POST", "/api/v1/events/subscriptions", request);
        if (a.status() != 201) {
            throw new AssertionError("create failed: " + a.status() + " " + a.body());
        }
        return a.json().get("id").asText();
    }

    /** A CreateEventSubscription request: resources, filters JSON array, destinations JSON array, retries. */
    static String request(String name, String resources, String filters, String destinations, int retries) {
        return """
                {"name": "%s", "displayName": "%s", "alertType": "Notification",
                 "trigger": {"triggerType": "RealTime"}, "resources": %s,
                 "input": {"filters": %s, "actions": []},
                 "destinations": %s, "retries": %d, "provider": "user", "pollInterval": 10}
                """.formatted(name, name, resources, filters, destinations, retries);
    }

    /** A webhook destination JSON. */
    static String webhook(String type, String url, String secret) {
        return """
                {"category": "External", "type": "%s", "timeout": 2, "readTimeout": 3,
                 "config": {"endpoint": "%s"%s}}
                """.formatted(type, url, secret == null ? "" : ", \"secretKey\": \"" + secret + "\"");
    }
}
