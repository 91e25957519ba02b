package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A new subscription starts where the platform starts one (issue 26): at the source topics' log end when it is
 * created, also while its group still lags behind — the events already on the topic go to the subscriptions that
 * existed before, not to it — or at the {@code startingOffset}/{@code startingTimestamp} it was created with. The
 * point is stored with the subscription, so a restart with a group that reads the topics from the beginning does not
 * deliver the older events to it either. Real broker, real alert service, real local HTTP receiver.
 */
class StartingPointIT {

    private static final int OLD = 300;
    private static final int NEW = 20;
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void aSubscriptionCreatedWhileTheGroupLagsGetsOnlyEventsAfterItsStart() throws Exception {
        String ns = AlertTestSupport.namespace("start");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 2);
        AlertTestSupport.provision(broker, catalog);
        String group = ns + "group";
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, group);
        try (Receiver receiver = new Receiver();
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                     broker.bootstrapServers()))) {
            // a subscription that existed before the backlog, at a receiver slow enough to keep the group lagging
            receiver.slowEvery("/busy", 1, Duration.ofMillis(30));
            String busy;
            try (AlertService first = AlertService.start(AlertTestSupport.config(settings))) {
                busy = AlertTestSupport.create(first.httpPort(), request("busy", receiver.url("/busy"), null));
            }
            List<ChangeEvent> old = events(OLD);
            AlertTestSupport.produce(broker, catalog.changes().name(), old);
            long afterOld = System.currentTimeMillis();
            // the fresh events' record times come after startingTimestamp, the backlog's not
            Awaitility.await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(1))
                    .until(() -> System.currentTimeMillis() > afterOld + 5);

            String fresh;
            String earliest;
            String byTime;
            long committedAtCreation;
            int busyAtCreation;
            try (AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
                int port = service.httpPort();
                fresh = AlertTestSupport.create(port, request("fresh", receiver.url("/fresh"), null));
                committedAtCreation = committed(admin, group, catalog);
                busyAtCreation = receiver.hits("/busy").size();
                earliest = AlertTestSupport.create(port, request("earliest", receiver.url("/earliest"),
                        "\"startingOffset\": \"earliest\""));
                byTime = AlertTestSupport.create(port, request("by-time", receiver.url("/by-time"),
                        "\"startingTimestamp\": " + afterOld));
                assertTrue(committedAtCreation < OLD && busyAtCreation < OLD, "the group lagged when 'fresh' was "
                        + "created: committed " + committedAtCreation + " of " + OLD + ", busy had " + busyAtCreation);

                JsonNode stored = AlertTestSupport.call(port, "GET", "/api/v1/events/subscriptions/" + fresh, null)
                        .json().path("startingPoint");
                assertEquals(Set.of(0L + OLD), sumOf(stored), "fresh starts at the log end of both partitions: "
                        + stored);

                List<ChangeEvent> later = events(NEW);
                AlertTestSupport.produce(broker, catalog.changes().name(), later);
                Awaitility.await().atMost(Duration.ofSeconds(120)).until(() ->
                        receiver.hits("/busy").size() >= OLD + NEW && receiver.hits("/fresh").size() >= NEW
                                && receiver.hits("/by-time").size() >= NEW
                                && committed(admin, group, catalog) == OLD + NEW);
                assertEquals(keys(fresh, later), keys(receiver, "/fresh"), "fresh got exactly the events produced "
                        + "after it was created, although the group delivered " + (OLD - busyAtCreation)
                        + " older ones after that");
                assertEquals(keys(byTime, later), keys(receiver, "/by-time"), "startingTimestamp: the events from "
                        + "that time on");
                // earliest: from the oldest record on, of what the group had not passed yet (a subscription's point
                // never moves its group back: the events the group delivered before it existed need a replay group)
                Set<String> early = keys(receiver, "/earliest");
                assertTrue(keys(earliest, concat(old, later)).containsAll(early) && early.containsAll(
                        keys(earliest, later)) && early.size() > NEW, "startingOffset earliest: older events "
                        + "too (" + early.size() + ")");
                assertEquals(keys(busy, concat(old, later)), keys(receiver, "/busy"), "the older subscription got "
                        + "every event once");

                // an update keeps the stored point; the request's starting fields apply only at creation
                String update = request("fresh", receiver.url("/fresh"), "\"startingOffset\": 0");
                AlertTestSupport.Answer put = AlertTestSupport.call(port, "PUT", "/api/v1/events/subscriptions",
                        update);
                assertEquals(200, put.status(), put.body());
                assertEquals(stored, put.json().path("startingPoint"));
            }

            // a restart with a new group that reads both partitions from the start: the point holds
            receiver.slowEvery("/busy", Integer.MAX_VALUE, Duration.ZERO);
            Map<String, String> replaySettings = new HashMap<>(settings);
            replaySettings.put("group.id", ns + "group-2");
            int earliestBefore = receiver.hits("/earliest").size();
            try (AlertService again = AlertService.start(AlertTestSupport.config(replaySettings))) {
                Awaitility.await().atMost(Duration.ofSeconds(120)).until(() ->
                        committed(admin, ns + "group-2", catalog) == OLD + NEW
                                && receiver.hits("/earliest").size() >= earliestBefore + OLD + NEW);
                List<String> freshKeys = receiver.hits("/fresh").stream().map(Receiver.Hit::idempotencyKey).toList();
                assertEquals(2 * NEW, freshKeys.size(), "each group delivered the later events to fresh once");
                assertTrue(keys(fresh, old).stream().noneMatch(freshKeys::contains),
                        "no event from before fresh's start reached it after the restart");
            }
        }
    }

    @Test
    void aStartingFieldThatCannotBeUsedIsA400NamingIt() {
        String ns = AlertTestSupport.namespace("start-bad");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 1);
        AlertTestSupport.provision(broker, catalog);
        try (Receiver receiver = new Receiver(); AlertService service = AlertService.start(AlertTestSupport.config(
                AlertTestSupport.settings(broker, ns, ns + "group")))) {
            int port = service.httpPort();
            String url = receiver.url("/x");
            Map<String, String> refused = new java.util.LinkedHashMap<>();
            refused.put("\"startingOffset\": -1", "startingOffset: must be >= 0");
            refused.put("\"startingOffset\": \"soon\"", "startingOffset: must be an offset");
            refused.put("\"startingOffset\": {\"nope-0\": 1}", "startingOffset.nope-0: is not a partition");
            refused.put("\"startingOffset\": {\"" + catalog.changes().name() + "-0\": \"x\"}",
                    "startingOffset." + catalog.changes().name() + "-0: must be an integer");
            refused.put("\"startingTimestamp\": " + (System.currentTimeMillis() + 3_600_000),
                    "startingTimestamp: is in the future");
            refused.put("\"startingTimestamp\": \"yesterday\"", "startingTimestamp: must be epoch milliseconds");
            refused.put("\"startingOffset\": 0, \"startingTimestamp\": 0", "startingTimestamp: give either");
            int i = 0;
            for (Map.Entry<String, String> e : refused.entrySet()) {
                AlertTestSupport.Answer a = AlertTestSupport.call(port, "POST", "/api/v1/events/subscriptions",
                        request("bad-" + i++, url, e.getKey()));
                assertEquals(400, a.status(), e.getKey() + " -> " + a.body());
                assertTrue(a.json().path("message").asText().startsWith(e.getValue()), e.getKey() + " -> "
                        + a.body());
            }
            assertEquals(0, AlertTestSupport.call(port, "GET", "/api/v1/events/subscriptions", null).json()
                    .path("paging").path("total").asInt(), "nothing was created");
        }
    }

    private static String request(String name, String url, String extra) {
        String base = AlertTestSupport.request(name, "[\"table\"]", "[]", "[" + AlertTestSupport.webhook("Webhook",
                url, null) + "]", 0).strip();
        return extra == null ? base : base.substring(0, base.length() - 1) + ", " + extra + "}";
    }

    private static List<ChangeEvent> events(int n) {
        return IntStream.range(0, n).mapToObj(i -> AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table",
                UUID.randomUUID().toString(), "s.d.t" + i)).toList();
    }

    private static List<ChangeEvent> concat(List<ChangeEvent> a, List<ChangeEvent> b) {
        List<ChangeEvent> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static Set<String> keys(String subscriptionId, List<ChangeEvent> events) {
        return events.stream().map(e -> subscriptionId + ":" + e.id()).collect(Collectors.toSet());
    }

    private static Set<String> keys(Receiver receiver, String path) {
        List<String> hits = receiver.hits(path).stream().map(Receiver.Hit::idempotencyKey).toList();
        Set<String> unique = Set.copyOf(hits);
        assertEquals(hits.size(), unique.size(), path + " got an event twice");
        return unique;
    }

    /** The sum of the stored first offsets, as a one-element set (both partitions together). */
    private static Set<Long> sumOf(JsonNode startingPoint) {
        long sum = 0;
        for (JsonNode offset : startingPoint.path("offsets")) {
            sum += offset.asLong();
        }
        return Set.of(sum);
    }

    /** The group's committed offsets on changes, summed over its partitions. */
    private static long committed(Admin admin, String group, TopicCatalog catalog) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        return offsets.entrySet().stream().filter(e -> e.getKey().topic().equals(catalog.changes().name())
                && e.getValue() != null).mapToLong(e -> e.getValue().offset()).sum();
    }
}
