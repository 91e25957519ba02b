package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * Replay through the service (issue 26): {@code POST /api/v1/events/replays} delivers the events written in a time
 * range again, once, to the subscriptions it names, under a consumer group of its own — the live group's committed
 * offsets and its ledger (the events record) stay as they were, the subscriptions it does not name get nothing.
 * Real broker, real alert service, real local HTTP receiver.
 */
class ReplayIT {

    private static final String REPLAYS = "/api/v1/events/replays";
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void aTimeRangeIsDeliveredOnceMoreToTheNamedSubscriptionsUnderItsOwnGroupAndTheLiveGroupIsUntouched()
            throws Exception {
        String ns = AlertTestSupport.namespace("replay");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 2);
        AlertTestSupport.provision(broker, catalog);
        String group = ns + "group";
        try (Receiver receiver = new Receiver();
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                     broker.bootstrapServers()));
             AlertService service = AlertService.start(AlertTestSupport.config(
                     AlertTestSupport.settings(broker, ns, group)))) {
            int port = service.httpPort();
            String named = AlertTestSupport.create(port, request("named", receiver.url("/named")));
            String other = AlertTestSupport.create(port, request("other", receiver.url("/other")));

            List<ChangeEvent> before = events(20);
            List<ChangeEvent> during = events(15);
            List<ChangeEvent> after = events(10);
            produceAndAwait(receiver, catalog, before, 20);
            Instant from = afterNow();
            produceAndAwait(receiver, catalog, during, 35);
            Instant to = afterNow();
            produceAndAwait(receiver, catalog, after, 45);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> committed(admin, group).values().stream()
                    .mapToLong(Long::longValue).sum() == 45);
            Map<TopicPartition, Long> liveBefore = committed(admin, group);

            String replay = ns + "replay-1";
            AlertTestSupport.Answer started = AlertTestSupport.call(port, "POST", REPLAYS, body(replay, named,
                    from, to));
            assertEquals(202, started.status(), started.body());
            assertEquals(replay, started.json().path("group").asText(), started.body());
            assertEquals("RUNNING", started.json().path("state").asText(), started.body());
            assertEquals(15, started.json().path("events").path("total").asLong(), "the range holds the 15 events "
                    + "written between from and to: " + started.body());

            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                    "COMPLETED".equals(status(port, replay).path("state").asText()));
            JsonNode done = status(port, replay);
            assertEquals(15, done.path("events").path("done").asLong(), done.toString());
            assertEquals(15, done.path("subscriptions").get(0).path("deliveredEvents").asLong(), done.toString());
            // let anything extra arrive before counting
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);

            Map<String, Long> namedKeys = receiver.hits("/named").stream().collect(Collectors.groupingBy(
                    Receiver.Hit::idempotencyKey, Collectors.counting()));
            assertEquals(keys(named, during), namedKeys.entrySet().stream().filter(e -> e.getValue() == 2)
                    .map(Map.Entry::getKey).collect(Collectors.toSet()), "each event of the range once more");
            assertEquals(45, namedKeys.size(), "every live event once, nothing else: " + namedKeys.size());
            assertTrue(namedKeys.values().stream().allMatch(n -> n <= 2), "no event more than once more");
            assertEquals(45, receiver.hits("/other").size(), "a subscription the replay does not name gets nothing");

            assertEquals(liveBefore, committed(admin, group), "the live group's committed offsets are untouched");
            JsonNode record = AlertTestSupport.call(port, "GET", "/api/v1/events/subscriptions/id/" + named
                    + "/eventsRecord", null).json();
            assertEquals(45, record.path("successfulEventsCount").asLong(), "the live group's ledger counts its own "
                    + "deliveries only: " + record);
            Map<TopicPartition, Long> replayed = committed(admin, replay);
            assertEquals(done.path("partitions").size(), replayed.size(), "the replay's group committed every "
                    + "source partition: " + replayed);

            JsonNode listed = AlertTestSupport.call(port, "GET", REPLAYS, null).json().path("data");
            assertEquals(1, listed.size());
            assertEquals(replay, listed.get(0).path("group").asText());
        }
    }

    @Test
    void aReplayThatCannotRunIsRefusedNamingTheField() throws Exception {
        String ns = AlertTestSupport.namespace("replay-bad");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 1);
        AlertTestSupport.provision(broker, catalog);
        String group = ns + "group";
        try (Receiver receiver = new Receiver();
             AlertService service = AlertService.start(AlertTestSupport.config(
                     AlertTestSupport.settings(broker, ns, group)))) {
            int port = service.httpPort();
            String id = AlertTestSupport.create(port, request("named", receiver.url("/named")));
            Instant from = Instant.now().minusSeconds(60);
            Instant to = Instant.now();
            Map<String, String> refused = new LinkedHashMap<>();
            refused.put("{\"subscriptions\": [\"" + id + "\"], \"from\": \"" + from + "\"}", "400 group:");
            refused.put(body(group, id, from, to), "400 group: is a consumer group of the live service");
            refused.put(body(ns + "r", "no-such-id", from, to), "400 subscriptions[0]: no subscription");
            refused.put("{\"group\": \"" + ns + "r\", \"subscriptions\": [\"" + id + "\"]}", "400 from:");
            refused.put(body(ns + "r", id, to, from), "400 from: must be before to");
            refused.put(body(ns + "r", id, from, Instant.now().plusSeconds(3600)), "400 to: lies ahead of now");
            refused.put("{\"group\": \"" + ns + "r\", \"subscriptions\": [\"" + id + "\"], \"from\": \"yesterday\"}",
                    "400 from: is not an ISO-8601 instant");
            refused.put("[1, 2]", "400 body:");
            for (Map.Entry<String, String> e : refused.entrySet()) {
                AlertTestSupport.Answer a = AlertTestSupport.call(port, "POST", REPLAYS, e.getKey());
                assertEquals(e.getValue(), (a.status() + " " + a.json().path("message").asText())
                        .substring(0, e.getValue().length()), e.getKey() + " -> " + a.body());
            }
            assertEquals(0, AlertTestSupport.call(port, "GET", REPLAYS, null).json().path("data").size(),
                    "nothing was started");

            assertEquals(202, AlertTestSupport.call(port, "POST", REPLAYS, body(ns + "r", id, from, to)).status());
            AlertTestSupport.Answer again = AlertTestSupport.call(port, "POST", REPLAYS, body(ns + "r", id, from, to));
            assertEquals(409, again.status(), "a replay takes a new group: " + again.body());
            assertEquals(404, AlertTestSupport.call(port, "GET", REPLAYS + "/" + ns + "unknown", null).status());
            assertEquals(401, AlertTestSupport.call(port, "GET", REPLAYS, null, "wrong-token").status());
        }
    }

    private static void produceAndAwait(Receiver receiver, TopicCatalog catalog, List<ChangeEvent> events,
                                        int total) {
        AlertTestSupport.produce(Brokers.shared(), catalog.changes().name(), events);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> receiver.hits("/named").size() >= total
                && receiver.hits("/other").size() >= total);
    }

    /** An instant a few ms from now, once the wall clock passed it: records written later carry later times. */
    private static Instant afterNow() {
        Instant at = Instant.now().plusMillis(5);
        Awaitility.await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(1))
                .until(() -> Instant.now().isAfter(at.plusMillis(5)));
        return at;
    }

    private static JsonNode status(int port, String replay) {
        return AlertTestSupport.call(port, "GET", REPLAYS + "/" + replay, null).json();
    }

    private static String body(String group, String subscription, Instant from, Instant to) {
        return "{\"group\": \"" + group + "\", \"subscriptions\": [\"" + subscription + "\"], \"from\": \"" + from
                + "\", \"to\": \"" + to + "\"}";
    }

    private static String request(String name, String url) {
        return AlertTestSupport.request(name, "[\"table\"]", "[]", "[" + AlertTestSupport.webhook("Webhook", url,
                null) + "]", 0);
    }

    private static List<ChangeEvent> events(int n) {
        return IntStream.range(0, n).mapToObj(i -> AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table",
                UUID.randomUUID().toString(), "s.d.t" + i)).toList();
    }

    private static Set<String> keys(String subscriptionId, List<ChangeEvent> events) {
        return events.stream().map(e -> subscriptionId + ":" + e.id()).collect(Collectors.toSet());
    }

    /** A group's committed offsets, by partition. */
    private static Map<TopicPartition, Long> committed(Admin admin, String group) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, Long> out = new HashMap<>();
        offsets.forEach((tp, o) -> {
            if (o != null) {
                out.put(tp, o.offset());
            }
        });
        return out;
    }
}
