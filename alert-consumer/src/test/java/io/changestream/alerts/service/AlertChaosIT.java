package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Alert service instances as child JVMs ({@link AlertServiceMain} with a config file, as the launcher runs it) on
 * the real broker with a real local receiver. With a {@code kill -9} loop every (subscription, event) pair of the
 * at-least-once webhooks is received, duplicates stay within one in-flight pair per lane per kill (a pair delivered
 * but killed before its ledger ack) and carry the same Idempotency-Key; the at-most-once Slack subscription gets no
 * duplicate at all, and each pair it did not get is in the DLQ as "outcome unknown after crash". With graceful
 * rebalances only (instances joining, SIGTERM leaving), while some deliveries take 15 s, there is no duplicate at all.
 * In both, the first arrivals of each entity keep the order the events were produced in.
 */
class AlertChaosIT {

    private static final int PARTITIONS = 12;
    private final KafkaBroker broker = Brokers.shared();

    /** The three subscriptions: tables → webhook, dashboards → webhook, everything → Slack-shaped. */
    private static final int LANES = 16;

    private record Setup(TopicCatalog catalog, Map<String, String> settings, Path dir, Receiver receiver,
                         Map<String, String> pathOfSubscription, Map<String, Integer> indexOfEvent) {
    }

    @Test
    void killNineLoopLosesNothingAndDuplicatesCarryTheSameKey() throws Exception {
        int events = 20_000;
        int pairs = events * 2; // each event matches its type's subscription and "everything"
        try (Receiver receiver = new Receiver()) {
            Setup setup = setup("chaos", receiver);
            List<Process> workers = new ArrayList<>();
            int incarnation = 0;
            int kills = 0;
            try {
                for (int i = 0; i < 3; i++) {
                    workers.add(startWorker(setup, incarnation++));
                }
                subscribe(setup, ready(setup, 0), List.of(0, 1, 2), true);
                produce(setup, events);
                Random random = new Random(42);
                int next = pairs / 5;
                while (kills < 4 && distinctPairs(receiver) < pairs - pairs / 10) {
                    int target = next;
                    Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> distinctPairs(receiver) >= target
                            || distinctPairs(receiver) >= pairs);
                    int victim = random.nextInt(workers.size());
                    workers.get(victim).destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
                    kills++;
                    workers.set(victim, startWorker(setup, incarnation++));
                    next = (int) distinctPairs(receiver) + pairs / 5;
                }
                Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                        .until(() -> covered(receiver, setup) >= pairs);
            } finally {
                stop(workers);
            }
            Set<String> unknown = unknownOutcomes(setup);
            Report report = check(receiver, setup, events, unknown);
            assertTrue(kills >= 2, "the run must include kills, had " + kills);
            System.out.printf("AlertChaosIT kill -9: %d events, %d pairs, %d kills, %d deliveries, %d duplicates "
                    + "(all with the same Idempotency-Key), at-most-once: 0 duplicates, %d reported unknown%n",
                    events, pairs, kills, report.deliveries, report.duplicates, unknown.size());
            // a kill leaves at most delivery.maxConcurrentPerDestination (= LANES here) requests in flight per
            // destination: two webhook destinations may repeat, the at-most-once one reports instead
            assertTrue(report.duplicates <= kills * LANES * 2, report.duplicates + " duplicates: more than the "
                    + "requests in flight per webhook destination per kill (" + kills + " x " + LANES + " x 2)");
            // unknown, per kill: the at-most-once requests holding a slot, those answered whose settle record was not
            // yet acked, and the hand-offs marked but not settled (decision 2105: each holds one of the runtime's
            // calls) — the marks make this bound wider than the requests in flight alone
            int perKill = LANES * 2 + io.changestream.runtime.RuntimeConfig.MAX_CALLS.defaultOrFail();
            assertTrue(unknown.size() <= kills * perKill, unknown.size() + " unknown outcomes: more than the "
                    + "at-most-once requests and hand-offs in flight per kill (" + kills + " x " + perKill + ")");
        }
    }

    @Test
    void gracefulRebalancesOnlyDeliverEveryPairExactlyOnce() throws Exception {
        int events = 6_000;
        int pairs = events * 2;
        try (Receiver receiver = new Receiver()) {
            Setup setup = setup("graceful", receiver);
            // some deliveries take 15 s: longer than runtime.revokeTimeout (5 s here), so a revoke meets them mid-call
            receiver.slowEvery("/tables", 300, Duration.ofSeconds(15));
            // a graceful stop drains running deliveries: its bound must exceed the longest one
            setup.settings().put("runtime.closeTimeout", "PT40S");
            List<Process> workers = new ArrayList<>();
            try {
                workers.add(startWorker(setup, 0));
                subscribe(setup, ready(setup, 0), List.of(0), false);
                produce(setup, events);
                int incarnation = 1;
                for (int step = 1; step <= 4; step++) {
                    int target = pairs * step / 6;
                    Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> distinctPairs(receiver) >= target);
                    if (step <= 2) {
                        workers.add(startWorker(setup, incarnation++)); // join
                    } else {
                        Process leaving = workers.remove(0);
                        leaving.destroy(); // SIGTERM: drain, commit, leave
                        assertTrue(leaving.waitFor(60, TimeUnit.SECONDS), "an instance did not stop on SIGTERM");
                        assertEquals(0, leaving.exitValue(), "SIGTERM exits 0");
                        workers.add(startWorker(setup, incarnation++));
                    }
                }
                // the last /tables pairs met a 15 s call and were shed to the retry path (decision 2101): they
                // arrive once their retry delay has passed, ~100 s after the last rebalance on an idle machine; the
                // bound is on loss, not on that latency (issue 21 tracks it)
                awaitAllPairs(receiver, setup, events, Duration.ofSeconds(240));
            } finally {
                stop(workers);
            }
            Report report = check(receiver, setup, events, Set.of());
            assertEquals(0, report.duplicates, () -> "graceful rebalances deliver nothing twice; received again: "
                    + report.duplicated);
            System.out.printf("AlertChaosIT graceful: %d events, %d pairs, %d deliveries, 0 duplicates%n", events,
                    pairs, report.deliveries);
        }
    }

    private Setup setup(String name, Receiver receiver) throws IOException {
        String ns = AlertTestSupport.namespace(name);
        TopicCatalog catalog = AlertTestSupport.catalog(ns, PARTITIONS);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("runtime.lanes", "16");
        // deliveries are asynchronous: what a kill can leave in flight is bounded per destination, not per lane
        settings.put("delivery.maxConcurrentPerDestination", Integer.toString(LANES));
        Path dir = Files.createDirectories(Path.of("target", "chaos", ns));
        return new Setup(catalog, settings, dir, receiver, new HashMap<>(), new HashMap<>());
    }

    private Process startWorker(Setup setup, int incarnation) throws IOException {
        return ChildInstances.start(setup.dir(), setup.settings(), incarnation);
    }

    /** Waits for an instance's READY line and returns its HTTP port. */
    private int ready(Setup setup, int incarnation) {
        return ChildInstances.ready(setup.dir(), incarnation);
    }

    /** Creates the three subscriptions through one instance and waits until the given instances see them. */
    private void subscribe(Setup setup, int port, List<Integer> incarnations, boolean slackAtMostOnce) {
        Receiver r = setup.receiver();
        setup.pathOfSubscription().put(create(port, request("tables", "[\"table\"]", "[]",
                "[" + webhook("Webhook", r.url("/tables"), "s3cret-key").replace("\"readTimeout\": 3",
                        "\"readTimeout\": 20") + "]", 10)), "/tables");
        setup.pathOfSubscription().put(create(port, request("dashboards", "[\"dashboard\"]", "[]",
                "[" + webhook("Webhook", r.url("/dashboards"), null) + "]", 10)), "/dashboards");
        String slack = webhook("Slack", r.url("/everything"), null);
        if (slackAtMostOnce) {
            slack = slack.replace("\"config\": {", "\"config\": {\"delivery\": \"atMostOnce\", ");
        }
        setup.pathOfSubscription().put(create(port, request("everything", "[\"all\"]", "[]",
                "[" + slack + "]", 10)), "/everything");
        for (int incarnation : incarnations) {
            int p = ready(setup, incarnation);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> setup.pathOfSubscription().keySet().stream()
                    .allMatch(id -> call(p, "GET", "/api/v1/events/subscriptions/" + id, null).status() == 200));
        }
    }

    private void produce(Setup setup, int events) {
        List<ChangeEvent> list = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            String entityId = UUID.nameUUIDFromBytes(("chaos-entity-" + (i % 500)).getBytes()).toString();
            String type = i % 2 == 0 ? "table" : "dashboard";
            ChangeEvent e = AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, type, entityId, "svc.db." + type + i);
            setup.indexOfEvent().put(e.id(), i);
            list.add(e);
        }
        AlertTestSupport.produce(broker, setup.catalog().changes().name(), list);
    }

    /** Pairs received or reported unknown (the at-most-once ones). */
    private long covered(Receiver receiver, Setup setup) {
        Set<String> pairs = new HashSet<>();
        receiver.all().forEach(h -> pairs.add(h.path() + " " + h.idempotencyKey()));
        unknownOutcomes(setup).forEach(k -> pairs.add("/everything " + k));
        return pairs.size();
    }

    /** Waits until every pair arrived; when it times out, the failure names the pairs that never did. */
    private static void awaitAllPairs(Receiver receiver, Setup setup, int events, Duration bound) throws IOException {
        try {
            Awaitility.await().atMost(bound).pollInterval(Duration.ofMillis(500))
                    .until(() -> distinctPairs(receiver) >= events * 2L);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            Set<String> received = new HashSet<>();
            receiver.all().forEach(h -> received.add(h.path() + " " + h.idempotencyKey()));
            List<String> missing = new ArrayList<>();
            setup.pathOfSubscription().forEach((id, path) -> setup.indexOfEvent().forEach((event, index) -> {
                boolean matches = path.equals("/everything") || (index % 2 == 0) == path.equals("/tables");
                if (matches && !received.contains(path + " " + id + ":" + event)) {
                    missing.add(path + " " + id + ":" + event + " (event " + index + ")");
                }
            }));
            Files.write(setup.dir().resolve("missing-pairs.txt"), missing);
            throw new AssertionError(missing.size() + " pairs never arrived within " + bound + ", e.g. "
                    + missing.subList(0, Math.min(10, missing.size())) + "; all in "
                    + setup.dir().resolve("missing-pairs.txt"), e);
        }
    }

    private static long distinctPairs(Receiver receiver) {
        return receiver.all().stream().map(h -> h.path() + " " + h.idempotencyKey()).distinct().count();
    }

    /** What the receivers got: requests in all, and those of a pair received before (each {@code path key}). */
    private record Report(int deliveries, int duplicates, List<String> duplicated) {
    }

    /** The Idempotency-Keys ({@code subscription:event}) of pairs dead-lettered as "outcome unknown after crash". */
    private Set<String> unknownOutcomes(Setup setup) {
        Set<String> out = new HashSet<>();
        for (var r : io.changestream.testkit.KafkaTestClients.readAll(broker, setup.catalog().alertDlq().name(),
                Duration.ofMillis(500))) {
            var failed = io.changestream.topics.serde.Serdes.failedEvent().fromJson(r.value());
            if (failed.reason().equals(io.changestream.alerts.pipeline.AlertProcessor.UNKNOWN_OUTCOME)) {
                out.add(failed.subscriptionId() + ":" + failed.changeEvent().id());
            }
        }
        return out;
    }

    /**
     * Every pair received at least once (or, for the at-most-once Slack subscription, reported unknown); every
     * webhook request of an event carries that event's one key (Slack bodies do not carry the event id, so their pair
     * is the key itself); the at-most-once subscription gets nothing twice; per entity and subscription the first
     * arrivals keep the produced order; counts the webhooks' duplicates.
     */
    private static Report check(Receiver receiver, Setup setup, int events, Set<String> unknown) {
        List<Receiver.Hit> hits = receiver.all();
        Map<String, String> subscriptionOfPath = new HashMap<>();
        setup.pathOfSubscription().forEach((id, path) -> subscriptionOfPath.put(path, id));
        Set<String> seen = new HashSet<>();
        Map<String, Integer> lastOfEntity = new HashMap<>();
        int duplicates = 0;
        List<String> duplicated = new ArrayList<>();
        for (Receiver.Hit h : hits) {
            String prefix = subscriptionOfPath.get(h.path()) + ":";
            int index = setup.indexOfEvent().get(h.idempotencyKey().substring(prefix.length()));
            assertTrue(h.idempotencyKey().startsWith(prefix), h.path() + " got key " + h.idempotencyKey());
            if (h.body() != null && h.body().has("id")) {
                assertEquals(prefix + h.body().get("id").asText(), h.idempotencyKey(),
                        "a request carries its own event's key");
            }
            if (!seen.add(h.path() + " " + h.idempotencyKey())) {
                assertTrue(!h.path().equals("/everything"), "the at-most-once destination got "
                        + h.idempotencyKey() + " twice");
                duplicates++;
                duplicated.add(h.path() + " " + h.idempotencyKey());
                continue;
            }
            Integer previous = lastOfEntity.put(h.path() + " " + index % 500, index);
            assertTrue(previous == null || previous < index, h.path() + ": entity order broken, event " + index
                    + " after " + previous);
        }
        assertEquals(events / 2, seen.stream().filter(p -> p.startsWith("/tables ")).count());
        assertEquals(events / 2, seen.stream().filter(p -> p.startsWith("/dashboards ")).count());
        // a pair reported unknown may have arrived (killed after the send, before the ledger ack) or not
        Set<String> slack = new HashSet<>();
        seen.stream().filter(p -> p.startsWith("/everything ")).forEach(p -> slack.add(p.substring(12)));
        slack.addAll(unknown);
        assertEquals(events, slack.size(), "every Slack pair received or reported unknown");
        return new Report(hits.size(), duplicates, duplicated);
    }

    private static void stop(List<Process> workers) throws InterruptedException {
        workers.forEach(Process::destroy);
        for (Process w : workers) {
            if (!w.waitFor(40, TimeUnit.SECONDS)) {
                w.destroyForcibly();
            }
        }
    }
}
