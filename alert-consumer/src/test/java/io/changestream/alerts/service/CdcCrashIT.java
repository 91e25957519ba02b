package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.cdc.CdcMain;
import io.changestream.cdc.LocalPostgresCapture;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.PostgresDatabase;
import io.changestream.topics.TopicCatalog;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * cdc-connector is at least once: after a crash it produces its last unflushed batch again, the same event ids at new
 * offsets. With the connector as a child JVM killed (SIGKILL) twice during 5,000 inserts at about 200 rows/s into
 * the platform's {@code change_event}, one alert service delivers every event to a webhook and every dashboard event
 * to GreenMail: nothing lost, <b>no duplicate at either receiver</b>, and per entity the first arrivals keep the
 * insertion order. Issue 10: before the ledger knew its own writes this run delivered 140 webhook and 46 e-mail duplicates.
 */
class CdcCrashIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private static final int ROWS = 5_000;
    private static final int ROWS_PER_TX = 20;
    private static final int ENTITIES = 50;
    private static final Pattern FQN = Pattern.compile("dashboard_(\\d{5})");
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void twoConnectorKillsDuringInsertsDeliverEveryEventOnceInOrderPerEntity() throws Exception {
        String ns = AlertTestSupport.namespace("cdccrash");
        // the connector provisions the catalog at its default partition count: create it the same
        TopicCatalog catalog = AlertTestSupport.catalog(ns, TopicCatalog.DEFAULT_CHANGES_PARTITIONS);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("runtime.lanes", "16");
        AlertTestSupport.smtp(settings, SMTP.getSmtp().getPort());
        String slot = "cs_crash_" + UUID.randomUUID().toString().substring(0, 8);
        Path dir = Files.createDirectories(Path.of("target", "cdc-crash", ns));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            ids.add(UUID.randomUUID().toString());
        }
        try (PostgresDatabase pg = PostgresDatabase.start(); Receiver receiver = new Receiver();
             AlertService alerts = AlertService.start(AlertTestSupport.config(settings))) {
            pg.executeResource("io/changestream/cdc/sql/postgres.sql");
            create(alerts.httpPort(), request("all-webhook", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/all"), null) + "]", 5));
            create(alerts.httpPort(), request("dashboard-mail", "[\"dashboard\"]", "[]",
                    "[{\"category\": \"External\", \"type\": \"Email\","
                            + " \"config\": {\"receivers\": [\"data@cs.test\"]}}]", 5));
            Map<String, String> cdc = cdcSettings(pg, ns, slot);
            AtomicInteger committed = new AtomicInteger();
            List<Process> connectors = new ArrayList<>();
            CompletableFuture<Void> inserts = null;
            try {
                connectors.add(startConnector(dir, "cdc-1", cdc));
                awaitCapturing(receiver, pg, connectors.get(0));
                inserts = CompletableFuture.runAsync(() -> insertAll(pg, ids, committed));
                for (int kill = 1; kill <= 2; kill++) {
                    int at = ROWS * (kill == 1 ? 3 : 6) / 10;
                    Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> committed.get() >= at);
                    Process victim = connectors.get(connectors.size() - 1);
                    victim.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL
                    connectors.add(startConnector(dir, "cdc-" + (kill + 1), cdc));
                }
                inserts.get(180, TimeUnit.SECONDS);
                long dashboards = ids.size() / 3 + (ids.size() % 3 > 0 ? 1 : 0);
                Awaitility.await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).until(() ->
                        distinctIds(receiver) >= ROWS && SMTP.getReceivedMessages().length >= dashboards);
                Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> true);

                List<Receiver.Hit> hits = receiver.hits("/all");
                Map<String, Integer> indexOf = new HashMap<>();
                for (int i = 0; i < ids.size(); i++) {
                    indexOf.put(ids.get(i), i);
                }
                Map<String, Integer> seen = new HashMap<>();
                Map<Integer, Integer> lastByEntity = new HashMap<>();
                int webhookDuplicates = 0;
                for (Receiver.Hit h : hits) {
                    if ("probe".equals(h.body().path("entityType").asText())) {
                        continue;
                    }
                    String id = h.body().get("id").asText();
                    assertTrue(indexOf.containsKey(id), "an event that was never inserted: " + id);
                    if (seen.merge(id, 1, Integer::sum) > 1) {
                        webhookDuplicates++;
                        continue;
                    }
                    int index = indexOf.get(id);
                    Integer previous = lastByEntity.put(index % ENTITIES, index);
                    assertTrue(previous == null || previous < index, "per-entity order broken at row " + index
                            + " after row " + previous);
                }
                Map<String, Integer> mails = new HashMap<>();
                int mailDuplicates = 0;
                for (MimeMessage m : SMTP.getReceivedMessages()) {
                    Matcher fqn = FQN.matcher(m.getSubject() + " " + GreenMailUtil.getBody(m));
                    assertTrue(fqn.find(), "a message names its entity: " + m.getSubject());
                    if (mails.merge(fqn.group(1), 1, Integer::sum) > 1) {
                        mailDuplicates++;
                    }
                }
                String report = "CdcCrashIT: rows=" + ROWS + " kills=2 webhook deliveries=" + seen.values().stream()
                        .mapToInt(Integer::intValue).sum()
                        + " webhook duplicates=" + webhookDuplicates + " e-mails=" + SMTP.getReceivedMessages().length
                        + " e-mail duplicates=" + mailDuplicates + " ledger hits="
                        + metric(alerts, "changestream_alert_ledger_hits_total");
                System.out.println(report);
                Files.writeString(Path.of("target", "cdc-crash.txt"), report + "\n");
                assertEquals(ROWS, seen.size(), "every inserted event reached the webhook");
                assertEquals(dashboards, mails.size(), "every dashboard event reached GreenMail");
                assertEquals(0, webhookDuplicates, report);
                assertEquals(0, mailDuplicates, report);
            } finally {
                if (inserts != null) {
                    inserts.cancel(true);
                }
                for (Process p : connectors) {
                    p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** Inserts one probe row until the webhook got it: the connector is streaming (first start: slot created). */
    private static void awaitCapturing(Receiver receiver, PostgresDatabase pg, Process connector) {
        String probe = UUID.randomUUID().toString();
        Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            assertTrue(connector.isAlive(), "the connector exited; see target/cdc-crash");
            pg.execute("INSERT INTO change_event (json) VALUES ('" + row(probe, 99_999, "probe") + "'::jsonb)");
            return receiver.hits("/all").stream().anyMatch(h -> probe.equals(h.body().path("id").asText()));
        });
    }

    private static long distinctIds(Receiver receiver) {
        return receiver.hits("/all").stream().filter(h -> !"probe".equals(h.body().path("entityType").asText()))
                .map(h -> h.body().get("id").asText()).distinct().count();
    }

    private static void insertAll(PostgresDatabase pg, List<String> ids, AtomicInteger committed) {
        try (Connection c = pg.connection();
             PreparedStatement insert = c.prepareStatement("INSERT INTO change_event (json) VALUES (?::jsonb)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < ids.size(); i++) {
                insert.setString(1, row(ids.get(i), i, i % 3 == 0 ? "dashboard" : "table"));
                insert.addBatch();
                if ((i + 1) % ROWS_PER_TX == 0 || i == ids.size() - 1) {
                    insert.executeBatch();
                    c.commit();
                    committed.set(i + 1);
                    TimeUnit.MILLISECONDS.sleep(100); // about 200 rows/s, so the kills land mid-stream
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("inserting rows failed", e);
        }
    }

    private static String row(String id, int index, String type) {
        String entity = UUID.nameUUIDFromBytes(("crash-entity-" + (index % ENTITIES)).getBytes()).toString();
        return ("{\"id\":\"%s\",\"eventType\":\"entityUpdated\",\"entityType\":\"%s\",\"entityId\":\"%s\","
                + "\"entityFullyQualifiedName\":\"svc.db.%s_%05d\",\"userName\":\"alice\",\"timestamp\":%d,"
                + "\"previousVersion\":0.1,\"currentVersion\":0.2}").formatted(id, type, entity, type, index,
                System.currentTimeMillis());
    }

    private Map<String, String> cdcSettings(PostgresDatabase pg, String ns, String slot) {
        Map<String, String> s = new LocalPostgresCapture(pg.host(), pg.port(), PostgresDatabase.DATABASE,
                PostgresDatabase.USER, PostgresDatabase.PASSWORD).settings(broker.bootstrapServers(), ns, slot);
        s.put("heartbeat.interval.ms", "1000");
        s.put("postgres.slot.max.retries", "1000000");
        s.put("postgres.slot.retry.delay.ms", "500");
        return s;
    }

    /** cdc-connector as a child JVM ({@link CdcMain} on this class path); output in target/cdc-crash. */
    private static Process startConnector(Path dir, String name, Map<String, String> settings) throws IOException {
        Path config = dir.resolve(name + ".properties");
        Properties props = new Properties();
        props.putAll(settings);
        try (Writer w = Files.newBufferedWriter(config)) {
            props.store(w, "cdc-connector " + name);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), CdcMain.class.getName(), config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile()).start();
    }

    private static double metric(AlertService service, String name) {
        return service.meters().scrape().lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
