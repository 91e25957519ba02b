package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.pipeline.AlertProcessor;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import io.changestream.topics.trace.TraceContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The W3C trace through the alert service on the real broker: a {@code changes} record's {@code traceparent} goes
 * out on every webhook request of its event (same trace id, a new span id per request, retries included) and is
 * the {@code traceId} of the lines logged while the event is processed, next to its {@code eventId}; a record
 * without a traceparent, or with a malformed one, is delivered under a new trace. The processing line is checked
 * as the JSON the launcher's {@code logback.xml} writes with {@code CHANGESTREAM_LOG_FORMAT=json}.
 */
class TraceparentIT {

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void theRecordsTraceGoesOutOnEveryWebhookRequestAndIntoTheLogContext() throws Exception {
        String ns = AlertTestSupport.namespace("trace");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 1);
        AlertTestSupport.provision(broker, catalog);
        Logger processorLog = (Logger) LoggerFactory.getLogger(AlertProcessor.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        Level level = processorLog.getLevel();
        processorLog.setLevel(Level.DEBUG);
        processorLog.addAppender(lines);
        try (Receiver receiver = new Receiver().then("/hook", 503);
             AlertService service = AlertService.start(AlertTestSupport.config(
                     AlertTestSupport.settings(broker, ns, ns + "group")))) {
            create(service.httpPort(), request("traced", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/hook"), null) + "]", 3));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> service.runtime().status().partitions()
                    .stream().anyMatch(p -> p.topic().equals(catalog.changes().name())));

            TraceContext trace = TraceContext.newTrace();
            ChangeEvent traced = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "table", "t-1", "svc.db.t1");
            ChangeEvent untraced = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "table", "t-2", "svc.db.t2");
            ChangeEvent malformed = AlertTestSupport.event(ChangeEvent.ENTITY_CREATED, "table", "t-3", "svc.db.t3");
            String bad = "00-not-a-trace-01";
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
                String topic = catalog.changes().name();
                ProducerRecord<String, String> first = record(topic, traced);
                first.headers().add(TraceContext.HEADER, trace.headerValue());
                producer.send(first);
                producer.send(record(topic, untraced));
                ProducerRecord<String, String> third = record(topic, malformed);
                third.headers().add(TraceContext.HEADER, bad.getBytes(StandardCharsets.UTF_8));
                producer.send(third);
                producer.flush();
            }

            // the first request (whichever event's) is answered 503 and retried: four requests in all
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> receiver.hits("/hook").size() >= 4
                    && hitsOf(receiver, traced).size() >= 1 && hitsOf(receiver, untraced).size() >= 1
                    && hitsOf(receiver, malformed).size() >= 1);

            List<TraceContext> sent = traces(receiver, traced);
            assertTrue(sent.stream().allMatch(t -> t.traceId().equals(trace.traceId())),
                    "the record's trace id on every request of its event: " + sent);
            assertTrue(sent.stream().noneMatch(t -> t.spanId().equals(trace.spanId())), "a child, not the parent");
            TraceContext fresh = traces(receiver, untraced).get(0);
            TraceContext fromBad = traces(receiver, malformed).get(0);
            for (ChangeEvent event : List.of(traced, untraced, malformed)) {
                List<TraceContext> requests = traces(receiver, event);
                assertEquals(1, requests.stream().map(TraceContext::traceId).distinct().count(),
                        "one trace per event, retries included: " + requests);
                assertEquals(requests.size(), requests.stream().map(TraceContext::spanId).distinct().count(),
                        "a new span id per request: " + requests);
            }
            assertNotEquals(trace.traceId(), fresh.traceId(), "no traceparent: a new trace");
            assertNotEquals(fresh.traceId(), fromBad.traceId(), "a malformed traceparent: a new trace of its own");

            ILoggingEvent line = lines.list.stream().filter(e -> traced.id().equals(e.getMDCPropertyMap()
                    .get("eventId"))).findFirst().orElseThrow(() -> new AssertionError("no line of the traced event: "
                    + lines.list.stream().map(ILoggingEvent::getMDCPropertyMap).toList()));
            JsonNode json = Json.mapper().readTree(asJson(line));
            assertEquals(traced.id(), json.path("eventId").asText(), json.toString());
            assertEquals(trace.traceId(), json.path("traceId").asText(), json.toString());
            assertEquals(catalog.changes().name() + "-0@0", json.path("record").asText(), json.toString());
            assertTrue(json.path("subscriptionId").isTextual(), json.toString());
        } finally {
            processorLog.detachAppender(lines);
            processorLog.setLevel(level);
        }
    }

    /**
     * A line as {@code CHANGESTREAM_LOG_FORMAT=json} writes it: the launcher's own {@code logback.xml} (module
     * ops) loaded into a fresh context with the json format, its encoder applied to the captured line.
     */
    private static String asJson(ILoggingEvent line) throws Exception {
        Path config = Path.of("..", "ops", "src", "main", "resources", "logback.xml");
        assertTrue(Files.isRegularFile(config), "the launcher's logback.xml at " + config.toAbsolutePath());
        LoggerContext context = new LoggerContext();
        try {
            context.putProperty("changestream.log.format", "json");
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(config.toFile());
            ConsoleAppender<ILoggingEvent> appender = (ConsoleAppender<ILoggingEvent>)
                    context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("json");
            String out = new String(appender.getEncoder().encode(line), StandardCharsets.UTF_8);
            assertEquals(1, out.lines().count(), out);
            return out;
        } finally {
            context.stop();
        }
    }

    private static ProducerRecord<String, String> record(String topic, ChangeEvent event) {
        return new ProducerRecord<>(topic, TopicKeys.change(event), Serdes.changeEvent().toJson(event));
    }

    private static List<TraceContext> traces(Receiver receiver, ChangeEvent event) {
        return hitsOf(receiver, event).stream().map(h -> TraceContext.parse(h.traceparent()).orElseThrow()).toList();
    }

    private static List<Receiver.Hit> hitsOf(Receiver receiver, ChangeEvent event) {
        return receiver.hits("/hook").stream().filter(h -> h.body() != null
                && event.id().equals(h.body().path("id").asText())).toList();
    }
}
