package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.testkit.LoopbackHttpServer;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Per-destination rate limits on the real path (broker → alert service → local HTTP receivers): a destination
 * limited to 10/s never gets more than its bucket allows while an unlimited one takes the same events at full speed,
 * and a receiver's 429 with {@code Retry-After} pauses that receiver only.
 */
class RateLimitIT {

    private static final int EVENTS = 60;
    private static final int LIMIT = 10;
    private final KafkaBroker broker = Brokers.shared();

    /** A local receiver that records when each request arrived, per path; {@code /busy} answers 429 once. */
    static final class TimedReceiver implements AutoCloseable {
        record Arrival(long nanos, String key, int status) {
        }

        private final LoopbackHttpServer server;
        private final Map<String, List<Arrival>> arrivals = new ConcurrentHashMap<>();
        private final AtomicInteger busyAnswers = new AtomicInteger();

        TimedReceiver() {
            server = LoopbackHttpServer.start(128, exchange -> {
                exchange.getRequestBody().readAllBytes();
                String path = exchange.getRequestURI().getPath();
                int status = path.equals("/busy") && busyAnswers.getAndIncrement() == 0 ? 429 : 200;
                if (status == 429) {
                    exchange.getResponseHeaders().add("Retry-After", "2");
                }
                arrivals.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>()).add(new Arrival(System.nanoTime(),
                        exchange.getRequestHeaders().getFirst("Idempotency-Key"), status));
                exchange.sendResponseHeaders(status, -1);
                exchange.close();
            });
        }

        String url(String path) {
            return server.url(path);
        }

        List<Arrival> at(String path) {
            return arrivals.getOrDefault(path, List.of());
        }

        long delivered(String path) {
            return at(path).stream().filter(a -> a.status() == 200).map(Arrival::key).distinct().count();
        }

        @Override
        public void close() {
            server.close();
        }
    }

    private static String destination(String url, String rateLimit) {
        return """
                [{"category": "External", "type": "Webhook", "timeout": 2, "readTimeout": 3,
                  "config": {"endpoint": "%s"%s}}]
                """.formatted(url, rateLimit == null ? "" : ", \"rateLimit\": \"" + rateLimit + "\"");
    }

    @Test
    void theLimitHoldsPerDestinationWhileOthersRunAtFullSpeedAndA429PausesOnlyItsReceiver() throws Exception {
        String ns = AlertTestSupport.namespace("ratelimit");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 3);
        AlertTestSupport.provision(broker, catalog);
        try (TimedReceiver receiver = new TimedReceiver();
             AlertService service = AlertService.start(AlertTestSupport.config(
                     AlertTestSupport.settings(broker, ns, ns + "group")))) {
            create(service.httpPort(), request("limited", "[\"table\"]", "[]",
                    destination(receiver.url("/limited"), LIMIT + "/s"), 10));
            create(service.httpPort(), request("fast", "[\"table\"]", "[]",
                    destination(receiver.url("/fast"), null), 10));
            create(service.httpPort(), request("busy", "[\"table\"]", "[]",
                    destination(receiver.url("/busy"), null), 10));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> service.runtime().status().partitions()
                    .stream().anyMatch(p -> p.topic().equals(catalog.changes().name())));

            List<ChangeEvent> events = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                events.add(AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table",
                        UUID.nameUUIDFromBytes(("rl-" + i).getBytes()).toString(), "svc.db.t" + i));
            }
            // the first event gets /busy's 429; the rest come while /busy is paused, so each of them has a pair
            // waiting for the pause beside one waiting for its slot at /limited (which must not wait for the pause)
            AlertTestSupport.produce(broker, catalog.changes().name(), events.subList(0, 1));
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() ->
                    !receiver.at("/busy").isEmpty());
            AlertTestSupport.produce(broker, catalog.changes().name(), events.subList(1, EVENTS));

            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() ->
                    receiver.delivered("/limited") == EVENTS && receiver.delivered("/fast") == EVENTS
                            && receiver.delivered("/busy") == EVENTS);

            List<Long> limited = receiver.at("/limited").stream().map(TimedReceiver.Arrival::nanos).sorted().toList();
            List<Long> fast = receiver.at("/fast").stream().map(TimedReceiver.Arrival::nanos).sorted().toList();
            assertEquals(EVENTS, limited.size(), "a held-back request is never sent early and then again");
            // token bucket: in any interval of t seconds at most LIMIT (the burst) + LIMIT * t requests
            for (int i = 0; i < limited.size(); i++) {
                for (int j = i; j < limited.size(); j++) {
                    double seconds = (limited.get(j) - limited.get(i)) / 1e9;
                    assertTrue(j - i + 1 <= LIMIT + LIMIT * seconds + 1, (j - i + 1) + " requests within "
                            + seconds + " s at " + LIMIT + "/s");
                }
            }
            double limitedSpan = (limited.get(limited.size() - 1) - limited.get(0)) / 1e9;
            double fastSpan = (fast.get(fast.size() - 1) - fast.get(0)) / 1e9;
            double paced = (EVENTS - LIMIT) / (double) LIMIT; // the burst, then one request per token interval
            assertTrue(limitedSpan >= paced - 0.5, "limited took " + limitedSpan + " s");
            // and no slower: a request held back comes back on its slot, not behind every later one (it took 2x)
            assertTrue(limitedSpan <= paced * 1.5, "limited took " + limitedSpan + " s for " + paced + " s of slots");
            assertTrue(fastSpan < limitedSpan / 2, "the unlimited destination took " + fastSpan
                    + " s for the same events, the limited one " + limitedSpan + " s");

            // the 429 paused /busy for its Retry-After, and only /busy
            TimedReceiver.Arrival throttled = receiver.at("/busy").stream().filter(a -> a.status() == 429)
                    .findFirst().orElseThrow();
            long resumeAfter = throttled.nanos() + Duration.ofMillis(1_900).toNanos();
            long pausedTooEarly = receiver.at("/busy").stream()
                    .filter(a -> a.nanos() > throttled.nanos() + Duration.ofMillis(300).toNanos()
                            && a.nanos() < resumeAfter).count();
            assertEquals(0, pausedTooEarly, "no request to /busy during its Retry-After (after the ones in flight)");
            // past the burst (300 ms after the 429), on its slots: ~15 in the 1.6 s left of the pause, though every
            // event's /busy pair waits for the pause
            long limitedMeanwhile = limited.stream().filter(t -> t > throttled.nanos()
                    + Duration.ofMillis(300).toNanos() && t < resumeAfter).count();
            assertTrue(limitedMeanwhile >= LIMIT, "the other destinations went on meanwhile: " + limitedMeanwhile);
        }
    }
}
