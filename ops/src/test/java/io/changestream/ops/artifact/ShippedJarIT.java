package io.changestream.ops.artifact;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import com.icegreen.greenmail.util.GreenMailUtil;
import io.changestream.alerts.destination.lineage.ImpactRunFacet;
import io.changestream.ops.subscriptions.SubscriptionsClient;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.ImpactEstate;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.KafkaTestClients;
import io.changestream.testkit.LoopbackHttpServer;
import io.changestream.testkit.OpenLineageSchemas;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.admin.TopicProvisioner;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.TopicKeys;
import io.changestream.topics.serde.Json;
import io.changestream.topics.serde.Serdes;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What users run is what is tested (issue 23): the fat jar this build packaged, {@code ops/target/changestream.jar},
 * started the way {@code ops/changestream alerts --config FILE} starts it — a child JVM, nothing of this test's
 * classpath — against the shared test broker. One subscription per destination type (webhook signed the platform's
 * way and the Standard Webhooks way, Slack, MS Teams, Google Chat, e-mail, OpenLineage over HTTP and over Kafka),
 * one Scheduled digest and one grouped subscription; every receiver is real (local HTTP servers, GreenMail, a topic)
 * and gets checked for the wire format it expects. Failure impact (issue 28) through the jar: configured against the
 * test kit's stand-in of the platform's lineage, entity and user APIs, a critical pipeline's failure reaches the
 * collector as a RunEvent with the {@code changestream_impact} facet (valid against the spec and the facet's schema)
 * and the owners of what it hurts by e-mail ({@code DownstreamOwners}); with the stand-in down the next one goes out
 * on time, saying the impact is unknown. Each test's module classpath has every dependency the fat jar
 * may lack, so only this test sees a jar that dropped one (openlineage-java's YAML parser did).
 */
class ShippedJarIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private static final String TOKEN = "shipped-jar-token-0123456789";
    private static final String OM_SECRET = "om-webhook-secret-0123456789";
    private static final byte[] STANDARD_KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final String STANDARD_SECRET = "whsec_" + Base64.getEncoder().encodeToString(STANDARD_KEY);
    private static final int EVENTS = 3;
    /** The critical (Tier1) pipeline that fails while the stand-in is down. */
    private static final String LATE_PIPELINE = "mysql_prod.ingest_late";
    /** Subjects of the table alerts to ops@cs.test. */
    private static final Predicate<String> OPS_MAIL = subject -> subject.contains("svc.db.public.t");
    private static final OpenLineageSchemas SCHEMAS = new OpenLineageSchemas(
            Map.of(ImpactRunFacet.NAME, ImpactRunFacet.SCHEMA_URL));

    /** One HTTP request a receiver got. */
    record Hit(String path, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }

        JsonNode json() {
            try {
                return Json.mapper().readTree(body);
            } catch (IOException e) {
                throw new AssertionError(path + " got no JSON: " + body, e);
            }
        }
    }

    private final List<Hit> hits = new CopyOnWriteArrayList<>();
    private final LoopbackHttpServer receiver = LoopbackHttpServer.start(64, exchange -> {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();
            }
            hits.add(new Hit(exchange.getRequestURI().getPath(), Map.copyOf(exchange.getRequestHeaders()),
                    new String(body, StandardCharsets.UTF_8)));
            exchange.sendResponseHeaders(200, -1);
        }
    });
    private final PlatformStandIn platform = new PlatformStandIn();
    private ShippedJar service;

    @AfterEach
    void stop() throws InterruptedException {
        if (service != null) {
            service.close();
        }
        receiver.close();
        platform.close();
    }

    /** What each receiver holds so far, and the service's warnings: the message of a failed wait. */
    private String received() throws IOException {
        Map<String, Long> counts = new java.util.TreeMap<>(hits.stream()
                .collect(Collectors.groupingBy(Hit::path, Collectors.counting())));
        counts.put("e-mail", (long) SMTP.getReceivedMessages().length);
        String problems = service.log().lines().filter(l -> l.contains("WARN") || l.contains("ERROR"))
                .limit(20).collect(Collectors.joining("\n"));
        return "received " + counts + "; the service's warnings:\n" + problems;
    }

    private List<Hit> at(String path) {
        return hits.stream().filter(h -> h.path().equals(path)).toList();
    }

    /** The RunEvents the collector at {@code path} got for a job. */
    private List<JsonNode> runEvents(String path, String job) {
        return at(path).stream().map(Hit::json).filter(e -> job.equals(e.at("/job/name").asText())).toList();
    }

    /** The e-mails GreenMail holds (one per recipient) whose subject passes. */
    private static List<MimeMessage> mails(Predicate<String> subject) {
        return Arrays.stream(SMTP.getReceivedMessages()).filter(m -> {
            try {
                return subject.test(m.getSubject());
            } catch (MessagingException e) {
                throw new AssertionError(e);
            }
        }).toList();
    }

    private static Set<String> recipients(List<MimeMessage> mails) throws MessagingException {
        Set<String> to = new java.util.TreeSet<>();
        for (MimeMessage m : mails) {
            Arrays.stream(m.getAllRecipients()).map(Address::toString).forEach(to::add);
        }
        return to;
    }

    @Test
    void theShippedJarDeliversToEveryDestinationType(@TempDir Path dir) throws Exception {
        KafkaBroker broker = Brokers.shared();
        String ns = "jar" + UUID.randomUUID().toString().substring(0, 6) + ".";
        TopicCatalog catalog = new TopicCatalog(ns).withReplicationFactor((short) 1)
                .withPartitions(CatalogTopic.CHANGES, 2).withPartitions(CatalogTopic.PIPELINE_STATUS, 2);
        String lineageTopic = ns + "lineage-events";
        try (Admin admin = broker.admin()) {
            new TopicProvisioner(admin).provision(catalog.all());
        }
        broker.createTopic(lineageTopic, 1);
        // the platform as the stand-in answers it: the estate, the untagged pipeline the other subscriptions watch
        // (critical-failures filters it out) and a second Tier1 pipeline that fails while the stand-in is down
        ImpactEstate.fill(platform);
        platform.ingestionPipeline("mysql_prod.ingest", "metadata", "databaseService", "mysql_prod");
        platform.ingestionPipeline(LATE_PIPELINE, "metadata", "databaseService", "mysql_prod", "Tier.Tier1");
        int port = startService(dir, settings(broker, ns, lineageTopic));
        Map<String, String> subscriptionIds = applySubscriptions(dir.resolve("subscriptions"), port, lineageTopic);

        List<ChangeEvent> events = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            events.add(new ChangeEvent(UUID.randomUUID().toString(), ChangeEvent.ENTITY_UPDATED, "table",
                    UUID.nameUUIDFromBytes(("jar-" + i).getBytes(StandardCharsets.UTF_8)).toString(), null,
                    "svc.db.public.t" + i, 0.1, 0.2, "alice", null, System.currentTimeMillis(), null, null, null));
        }
        PipelineRunStatus failed = new PipelineRunStatus("mysql_prod.ingest", "run-failed", PipelineState.FAILED,
                1_700_000_000_000L, 1_700_000_060_000L, System.currentTimeMillis());
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (ChangeEvent e : events) {
            records.add(new ProducerRecord<>(catalog.changes().name(), TopicKeys.change(e),
                    Serdes.changeEvent().toJson(e)));
        }
        PipelineRunStatus succeeded = new PipelineRunStatus("mysql_prod.ingest", "run-ok", PipelineState.SUCCESS,
                1_700_000_000_000L, 1_700_000_060_000L, System.currentTimeMillis());
        PipelineRunStatus critical = new PipelineRunStatus(ImpactEstate.PIPELINE, "run-failed", PipelineState.FAILED,
                1_700_000_000_000L, 1_700_000_060_000L, System.currentTimeMillis());
        for (PipelineRunStatus run : List.of(failed, succeeded, critical)) {
            records.add(runRecord(catalog, run));
        }
        java.time.Instant produced = java.time.Instant.now();
        KafkaTestClients.produce(broker, records);
        Set<String> ids = events.stream().map(ChangeEvent::id).collect(Collectors.toSet());

        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                assertTrue(List.of("/om", "/standard", "/slack", "/teams", "/gchat").stream()
                        .allMatch(p -> at(p).size() >= EVENTS)
                        && mails(OPS_MAIL).size() >= EVENTS && !at("/lineage").isEmpty()
                        && !at("/digest").isEmpty() && !at("/grouped").isEmpty()
                        && mails(impactMail(ImpactEstate.PIPELINE)).size() >= 4
                        && !runEvents("/impact", ImpactEstate.PIPELINE).isEmpty(), received()));

        // webhook, the platform's signature: X-OM-Signature is the hex HMAC-SHA256 of the body
        for (Hit hit : at("/om")) {
            assertEquals("sha256=" + HexFormat.of().formatHex(hmac(OM_SECRET.getBytes(StandardCharsets.UTF_8),
                    hit.body())), hit.header("X-OM-Signature"), "om signature of " + hit.body());
            assertTrue(ids.contains(hit.json().get("id").asText()), hit.body());
        }
        assertEquals(ids, at("/om").stream().map(h -> h.json().get("id").asText()).collect(Collectors.toSet()));
        // webhook, Standard Webhooks: v1 signature of "{webhook-id}.{webhook-timestamp}.{body}"
        for (Hit hit : at("/standard")) {
            String signed = hit.header("webhook-id") + "." + hit.header("webhook-timestamp") + "." + hit.body();
            assertEquals("v1," + Base64.getEncoder().encodeToString(hmac(STANDARD_KEY, signed)),
                    hit.header("webhook-signature"), "Standard Webhooks signature of " + hit.body());
            assertTrue(Math.abs(System.currentTimeMillis() / 1000 - Long.parseLong(hit.header("webhook-timestamp")))
                    < 300, "a current timestamp");
        }
        // the chat formats: Slack Block Kit, a Teams adaptive card, Google Chat cardsV2
        for (Hit hit : at("/slack")) {
            assertTrue(hit.json().get("text").asText().startsWith("table updated: svc.db.public.t"), hit.body());
            assertEquals("header", hit.json().at("/blocks/0/type").asText(), hit.body());
        }
        for (Hit hit : at("/teams")) {
            assertEquals("message", hit.json().get("type").asText(), hit.body());
            assertEquals("application/vnd.microsoft.card.adaptive", hit.json().at("/attachments/0/contentType")
                    .asText(), hit.body());
            assertEquals("AdaptiveCard", hit.json().at("/attachments/0/content/type").asText(), hit.body());
        }
        for (Hit hit : at("/gchat")) {
            assertTrue(hit.json().at("/cardsV2/0/card/header/title").asText().startsWith("table updated: "),
                    hit.body());
        }
        // e-mail, through SMTP
        List<MimeMessage> mails = mails(OPS_MAIL);
        assertEquals(EVENTS, mails.size());
        for (MimeMessage m : mails) {
            assertEquals("ops@cs.test", m.getAllRecipients()[0].toString());
            assertTrue(m.getSubject().contains("svc.db.public.t"), m.getSubject());
        }
        // OpenLineage over HTTP: the failed run as a FAIL RunEvent; the successful one is outside its statuses
        assertEquals(1, runEvents("/lineage", "mysql_prod.ingest").size(), "only the failed run is sent: "
                + at("/lineage"));
        JsonNode runEvent = runEvents("/lineage", "mysql_prod.ingest").get(0);
        assertEquals("FAIL", runEvent.get("eventType").asText(), runEvent.toString());
        assertEquals("mysql_prod.ingest", runEvent.at("/job/name").asText(), runEvent.toString());
        // OpenLineage over Kafka (the default statuses: both runs) on the allowlisted topic, keyed by job
        List<ConsumerRecord<String, String>> lineage = KafkaTestClients.consume(broker, lineageTopic, 3,
                Duration.ofSeconds(30));
        Set<String> types = new java.util.TreeSet<>();
        for (ConsumerRecord<String, String> r : lineage) {
            if (r.key().equals("openmetadata/mysql_prod.ingest")) {
                types.add(Json.mapper().readTree(r.value()).get("eventType").asText());
            }
        }
        assertEquals(Set.of("COMPLETE", "FAIL"), types);
        // /status counts what happened (issue 23): the unsent run is skipped, not delivered (both failures are)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode d = status(port, subscriptionIds.get("lineage-http")).at("/destinations/0");
            assertEquals(2, d.path("delivered").asLong(), d.toString());
            assertEquals(1, d.path("skipped").asLong(), d.toString());
        });
        // the Scheduled digest: one webhook message listing the window's events
        await().atMost(Duration.ofSeconds(30)).until(() -> at("/digest").stream()
                .mapToInt(h -> h.json().size()).sum() >= EVENTS);
        Set<String> digested = new java.util.HashSet<>();
        at("/digest").forEach(h -> h.json().forEach(e -> digested.add(e.get("id").asText())));
        assertEquals(ids, digested, "the digest lists every event of its window");
        // grouped: one Slack message for the entityType=table group
        assertEquals(List.of("grouped [entityType=table]: " + EVENTS + " changes"), at("/grouped").stream()
                .map(h -> h.json().get("text").asText()).toList());

        assertImpact(broker, catalog);
        assertReplay(port, ns + "replay", subscriptionIds.get("om"), produced, ids);
    }

    /**
     * Replay through the shipped service (issue 26): the range since the events were produced, once more to the om
     * subscription, under a group of its own.
     */
    private void assertReplay(int port, String group, String om, java.time.Instant from, Set<String> ids)
            throws Exception {
        java.net.http.HttpResponse<String> started = admin(port, "POST", "/api/v1/events/replays", "{\"group\": \""
                + group + "\", \"subscriptions\": [\"" + om + "\"], \"from\": \"" + from.minusSeconds(1) + "\"}");
        assertEquals(202, started.statusCode(), started.body());
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            java.net.http.HttpResponse<String> r = admin(port, "GET", "/api/v1/events/replays/" + group, null);
            assertEquals("COMPLETED", Json.mapper().readTree(r.body()).path("state").asText(), r.body());
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> at("/om").size() >= 2 * EVENTS);
        Map<String, Long> times = at("/om").stream().collect(Collectors.groupingBy(h -> h.json().get("id").asText(),
                Collectors.counting()));
        assertEquals(ids.stream().collect(Collectors.toMap(id -> id, id -> 2L)), times, "each event once more, "
                + "to the subscription the replay names");
    }

    /**
     * Failure impact through the jar (issue 28): what a user of the critical-failures subscription sees of the
     * Tier1 pipeline's failure, then of another one's while the platform is down.
     */
    private void assertImpact(KafkaBroker broker, TopicCatalog catalog) throws Exception {
        // the collector: a FAIL RunEvent whose outputs are the pipeline's tables and whose impact facet names the
        // downstream assets and their owners; valid against the OpenLineage spec and the facet's schema
        JsonNode event = runEvents("/impact", ImpactEstate.PIPELINE).get(0);
        assertEquals(List.of(), SCHEMAS.violations(event), event.toString());
        assertEquals("FAIL", event.get("eventType").asText(), event.toString());
        assertEquals("mysql_prod.shop.public.customers", event.at("/outputs/0/name").asText(), event.toString());
        JsonNode impact = event.at("/run/facets/" + ImpactRunFacet.NAME);
        assertEquals("resolved", impact.path("status").asText(), impact.toString());
        assertEquals(5, impact.path("total").asInt(), impact.toString());
        Map<String, String> owners = new java.util.TreeMap<>();
        impact.path("assets").forEach(a -> owners.put(a.path("fullyQualifiedName").asText(),
                a.path("owners").findValuesAsText("name").toString()));
        assertEquals(Map.of("mysql_prod.shop.public.orders", "[ana]", "mysql_prod.shop.public.customers", "[bob]",
                "warehouse.dw.sales.daily_orders", "[data-eng]", "superset.revenue", "[bob]", "ml.churn", "[ana]"),
                owners, impact.toString());
        // DownstreamOwners by e-mail: the owners of what it hurts and the listed receiver, the assets listed
        List<MimeMessage> toOwners = mails(impactMail(ImpactEstate.PIPELINE));
        Set<String> expected = new java.util.TreeSet<>(ImpactEstate.OWNER_EMAILS);
        expected.add(ImpactEstate.ONCALL);
        assertEquals(expected, recipients(toOwners));
        assertTrue(toOwners.get(0).getSubject().endsWith("— 5 impacted assets"), toOwners.get(0).getSubject());
        String body = GreenMailUtil.getWholeMessage(toOwners.get(0));
        for (String asset : owners.keySet()) {
            assertTrue(body.contains(asset), asset + " is not listed: " + body);
        }
        // the untagged pipeline's failure is not a critical one
        assertEquals(List.of(), runEvents("/impact", "mysql_prod.ingest"), "filterByTag let it through");

        // the platform down: the next critical failure goes out at once, without impact, and says so
        platform.unavailable(true);
        long sent = System.nanoTime();
        KafkaTestClients.produce(broker, List.of(runRecord(catalog, new PipelineRunStatus(LATE_PIPELINE, "run-1",
                PipelineState.FAILED, 1_700_000_000_000L, 1_700_000_060_000L, System.currentTimeMillis()))));
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> assertTrue(
                !mails(impactMail(LATE_PIPELINE)).isEmpty(), received()));
        long took = Duration.ofNanos(System.nanoTime() - sent).toMillis();
        assertTrue(took < 3000, "the platform down held the alert back " + took + " ms");
        List<MimeMessage> late = mails(impactMail(LATE_PIPELINE));
        assertEquals(Set.of(ImpactEstate.ONCALL), recipients(late));
        assertTrue(late.get(0).getSubject().endsWith("— impact unknown"), late.get(0).getSubject());
        String lateBody = GreenMailUtil.getWholeMessage(late.get(0));
        assertTrue(lateBody.contains("Downstream impact unknown: platform API answered 503"), lateBody);
        await().atMost(Duration.ofSeconds(20)).until(() -> !runEvents("/impact", LATE_PIPELINE).isEmpty());
        JsonNode unknown = runEvents("/impact", LATE_PIPELINE).get(0);
        assertEquals(List.of(), SCHEMAS.violations(unknown), unknown.toString());
        assertEquals("unavailable", unknown.at("/run/facets/" + ImpactRunFacet.NAME + "/status").asText(),
                unknown.toString());
    }

    /** Subjects of the critical-failures subscription's mail about a pipeline's failed run. */
    private static Predicate<String> impactMail(String pipeline) {
        return subject -> subject.startsWith("[critical-failures] ") && subject.contains(pipeline + " —");
    }

    private static ProducerRecord<String, String> runRecord(TopicCatalog catalog, PipelineRunStatus run) {
        return new ProducerRecord<>(catalog.pipelineStatus().name(), run.key(), Serdes.pipelineRunStatus().toJson(run));
    }

    private static byte[] hmac(byte[] key, String content) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(content.getBytes(StandardCharsets.UTF_8));
    }

    private String settings(KafkaBroker broker, String ns, String lineageTopic) {
        return String.join("\n",
                "kafka.bootstrap.servers=" + broker.bootstrapServers(),
                "topics.namespace=" + ns,
                "group.id=shipped-jar-" + ns,
                "http.host=127.0.0.1",
                "http.port=0",
                "admin.bearerToken=" + TOKEN,
                "destinations.allowPrivateAddresses=true",
                "destinations.rateLimit.slack=off",
                "destinations.rateLimit.msTeams=off",
                "destinations.rateLimit.gChat=off",
                "destinations.rateLimit.email=off",
                "destinations.lineage.kafkaTopics=" + lineageTopic,
                "smtp.host=127.0.0.1",
                "smtp.port=" + SMTP.getSmtp().getPort(),
                "smtp.startTls=false",
                "smtp.from=alerts@cs.test",
                "digest.tick=PT0.2S",
                "runtime.commitInterval=200",
                "destinations.platformUrl=" + platform.url(),
                "destinations.platform.bearerToken=" + PlatformStandIn.TOKEN,
                "impact.timeout=PT1S",
                "");
    }

    /** Starts {@code ops/changestream alerts --config FILE} on the packaged jar; returns its HTTP port. */
    private int startService(Path dir, String settings) throws Exception {
        service = ShippedJar.start(dir, "alerts", settings);
        return service.port();
    }

    /** One subscription per destination type, a digest and a grouped one, applied through the admin API. */
    private Map<String, String> applySubscriptions(Path dir, int port, String lineageTopic) throws IOException {
        Files.createDirectories(dir);
        write(dir, "om", table("om", webhook("Webhook", "/om", ", \"secretKey\": \"" + OM_SECRET + "\"")));
        write(dir, "standard", table("standard", webhook("Webhook", "/standard", ", \"secretKey\": \""
                + STANDARD_SECRET + "\", \"signatureScheme\": \"standard\"")));
        write(dir, "slack", table("slack", webhook("Slack", "/slack", "")));
        write(dir, "teams", table("teams", webhook("MsTeams", "/teams", "")));
        write(dir, "gchat", table("gchat", webhook("GChat", "/gchat", "")));
        write(dir, "email", table("email", "{\"category\": \"External\", \"type\": \"Email\", "
                + "\"config\": {\"receivers\": [\"ops@cs.test\"]}}"));
        write(dir, "lineage", lineage("lineage-http", "{\"endpoint\": \"" + receiver.url("/lineage")
                + "\", \"statuses\": [\"failed\"]}"));
        write(dir, "lineage-kafka", lineage("lineage-kafka", "{\"transport\": \"kafka\", \"topic\": \""
                + lineageTopic + "\"}"));
        write(dir, "digest", table("digest", webhook("Webhook", "/digest", "")).replace(
                "{\"triggerType\": \"RealTime\"}", "{\"triggerType\": \"Scheduled\", \"scheduleInfo\": \"Custom\", "
                        + "\"cronExpression\": \"0/2 * * * * ?\"}"));
        write(dir, "grouped", table("grouped", webhook("Slack", "/grouped", "")).replace("\"provider\": \"user\"",
                "\"provider\": \"user\", \"grouping\": {\"groupBy\": [\"entityType\"], \"groupWait\": \"3s\"}"));
        write(dir, "critical-failures", ImpactEstate.criticalFailures(receiver.url("/impact").toString()));
        List<SubscriptionsClient.Applied> applied = new SubscriptionsClient(URI.create("http://127.0.0.1:" + port),
                TOKEN, Duration.ofSeconds(20)).apply(SubscriptionsClient.files(dir));
        assertEquals(11, applied.size(), applied.toString());
        return applied.stream().collect(Collectors.toMap(SubscriptionsClient.Applied::name,
                SubscriptionsClient.Applied::id));
    }

    /** {@code GET …/{id}/status} of the shipped service, as a user reads it. */
    private static JsonNode status(int port, String id) throws IOException, InterruptedException {
        java.net.http.HttpResponse<String> r = admin(port, "GET", "/api/v1/events/subscriptions/" + id + "/status",
                null);
        assertEquals(200, r.statusCode(), r.body());
        return Json.mapper().readTree(r.body());
    }

    /** One call of the shipped service's admin API, with its token. */
    private static java.net.http.HttpResponse<String> admin(int port, String method, String path, String body)
            throws IOException, InterruptedException {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + path)).header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json").method(method, body == null
                        ? java.net.http.HttpRequest.BodyPublishers.noBody()
                        : java.net.http.HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    private static void write(Path dir, String name, String json) throws IOException {
        Files.writeString(dir.resolve(name + ".json"), json);
    }

    private String webhook(String type, String path, String extra) {
        return "{\"category\": \"External\", \"type\": \"" + type + "\", \"timeout\": 5, \"readTimeout\": 5, "
                + "\"config\": {\"endpoint\": \"" + receiver.url(path) + "\"" + extra + "}}";
    }

    private static String table(String name, String destination) {
        return """
                {"name": "%s", "alertType": "Notification", "trigger": {"triggerType": "RealTime"},
                 "resources": ["table"], "input": {"filters": [], "actions": []},
                 "destinations": [%s], "retries": 3, "provider": "user"}
                """.formatted(name, destination);
    }

    private static String lineage(String name, String config) {
        return """
                {"name": "%s", "alertType": "Observability", "resources": ["ingestionPipeline"],
                 "input": {"filters": [], "actions": [{"name": "GetIngestionPipelineStatusUpdates",
                   "effect": "include", "arguments": [{"name": "ingestionPipelineStateList", "input": ["failed", "success"]}]}]},
                 "destinations": [{"category": "External", "type": "OpenLineage", "config": %s}], "retries": 3}
                """.formatted(name, config);
    }
}
