package io.changestream.alerts.destination.limits;

import io.changestream.alerts.destination.LocalReceiver;
import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.destination.Patience;
import io.changestream.alerts.destination.http.HttpSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.testkit.LoopbackHttpServer;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.SubscriptionType;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code delivery.maxConcurrentPerDestination} on the real path (registry → Jetty's asynchronous client → a local
 * HTTP receiver that counts the requests it holds open per path): one destination never has more requests in flight
 * than its limit, the excess waits in its queue and is delivered, nothing is dropped; another destination on the same
 * receiver is not held back by the first one's limit; a full queue is a throttled retry inline; a destination that
 * stopped answering for {@code delivery.stallTimeout} sheds its requests unsent (the bulkhead: the pairs go to the
 * retry path); destinations with seventeen distinct timeouts share one client without aborting each other's
 * requests.
 */
class DestinationConcurrencyIT {

    private static final int LIMIT = 4;

    /**
     * Holds every request until it is let through ({@link #answer} some, {@link #open} all from then on); counts those
     * open per path. Requests answer strictly in the order they arrived: {@code answer(n)} lets the next {@code n}
     * arrivals through, so a request that arrives later never takes the answer of one already held (a plain
     * semaphore let a later request barge ahead of a held one still waking up). On a frozen service clock a held
     * answer is a prompt one (0 ms).
     */
    static final class HoldingReceiver implements AutoCloseable {
        private final LoopbackHttpServer server;
        private final Map<String, AtomicInteger> open = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> maxOpen = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
        private final Object turns = new Object();
        /** Arrivals so far (the next one's ticket), and how many of the first arrivals may answer. */
        private long arrived;
        private long letThrough;

        HoldingReceiver() {
            server = LoopbackHttpServer.start(256, exchange -> {
                exchange.getRequestBody().readAllBytes();
                String path = exchange.getRequestURI().getPath();
                long ticket;
                synchronized (turns) {
                    ticket = arrived++;
                }
                int now = count(open, path).incrementAndGet();
                count(maxOpen, path).accumulateAndGet(now, Math::max);
                count(received, path).incrementAndGet();
                awaitTurn(ticket);
                count(open, path).decrementAndGet();
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
        }

        /** Waits until the arrival {@code ticket} may answer, at most 30 s. */
        private void awaitTurn(long ticket) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            synchronized (turns) {
                while (ticket >= letThrough && System.nanoTime() < deadline) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(turns, deadline - System.nanoTime());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }

        private static AtomicInteger count(Map<String, AtomicInteger> counts, String path) {
            return counts.computeIfAbsent(path, p -> new AtomicInteger());
        }

        String url(String path) {
            return server.url(path);
        }

        int open(String path) {
            return count(open, path).get();
        }

        int maxOpen(String path) {
            return count(maxOpen, path).get();
        }

        int received(String path) {
            return count(received, path).get();
        }

        /** Lets the next {@code n} arrivals answer: the oldest held ones first, then the next ones to come. */
        void answer(int n) {
            synchronized (turns) {
                letThrough += n;
                turns.notifyAll();
            }
        }

        void open() {
            answer(1_000_000);
        }

    @Override
        public void close() {
            open();
            server.close();
        }
    }

    private static DestinationRegistry registry(PrometheusMeterRegistry meters, int queue) {
        return registry(meters, LIMIT, queue, Duration.ofMinutes(5), Clock.systemUTC());
    }

    private static DestinationRegistry registry(PrometheusMeterRegistry meters, int limit, int queue,
                                                Duration stallTimeout, Clock clock) {
        DestinationSettings settings = new DestinationSettings(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
                MessageSettings.DEFAULTS, CircuitBreakerSettings.DEFAULTS, null,
                io.changestream.alerts.destination.lineage.LineageSettings.DEFAULTS);
        return new DestinationRegistry(settings, new DeliveryConcurrency(limit, queue, 64, 2,
                Duration.ofMinutes(5), stallTimeout), clock,
                meters, null);
    }

    /** Requests 0 to {@code n - 1} to {@code d}, in order; a mutable list, for the test to add to. */
    private static List<CompletableFuture<DeliveryResult>> sendMany(DestinationRegistry registry,
                                                                    SubscriptionDestination d, int n) {
        List<CompletableFuture<DeliveryResult>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            sent.add(registry.deliverAsync(request(d, i)));
        }
        return sent;
    }

    /**
     * A prompt destination's full queue: {@code LIMIT} requests on the wire, two of them answered at once, two more on
     * the wire (held) and three queued; the nine requests, in order.
     */
    private static List<CompletableFuture<DeliveryResult>> fullQueue(DestinationRegistry registry,
                                                                     HoldingReceiver receiver, String path,
                                                                     SubscriptionDestination d) {
        List<CompletableFuture<DeliveryResult>> sent = sendMany(registry, d, LIMIT);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> receiver.received(path) == LIMIT);
        // the first two answer once all four are on the wire: an idle destination's slot, and what it knows of its
        // answers, ends with its last request
        receiver.answer(2);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> sent.stream()
                .filter(CompletableFuture::isDone).count() == 2);
        assertTrue(sent.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join)
                .allMatch(DeliveryResult::isDelivered));
        for (int i = 0; i < 2 + 3; i++) {
            sent.add(registry.deliverAsync(request(d, 10 + i)));
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> receiver.received(path) == LIMIT + 2);
        return sent;
    }

    /** How each request ended so far (or that it runs), in order: for a failure's message. */
    private static String outcomes(List<CompletableFuture<DeliveryResult>> sent) {
        return sent.stream().map(f -> !f.isDone() ? "running"
                : f.isCompletedExceptionally() ? "failed" : f.join().outcome() + " " + f.join().reason()).toList()
                .toString();
    }

    /**
     * Sends requests 20, 21, … to {@code d} until one is refused at once (slots and queue full): that result, or null
     * after 20; the ones taken are added to {@code sent}.
     */
    private static DeliveryResult untilRefused(DestinationRegistry registry, SubscriptionDestination d,
                                               List<CompletableFuture<DeliveryResult>> sent) {
        for (int i = 0; i < 20; i++) {
            CompletableFuture<DeliveryResult> next = registry.deliverAsync(request(d, 20 + i));
            if (next.isDone()) {
                return next.join();
            }
            sent.add(next);
        }
        return null;
    }

    private static DeliveryRequest request(SubscriptionDestination d, int i) {
        return DeliveryRequest.of(Fixtures.subscription(d), d, Fixtures.event(), 1 + i);
    }

    @Test
    void aDestinationNeverHasMoreRequestsInFlightThanItsLimitAndTheRestWaitsWithoutBeingDropped() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (HoldingReceiver receiver = new HoldingReceiver(); DestinationRegistry registry = registry(meters, 100)) {
            SubscriptionDestination limited = Fixtures.destination("limited", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/limited") + "\"}");
            SubscriptionDestination other = Fixtures.destination("other", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/other") + "\"}");
            List<CompletableFuture<DeliveryResult>> results = new ArrayList<>();
            long started = System.nanoTime();
            for (int i = 0; i < 40; i++) {
                results.add(registry.deliverAsync(request(limited, i)));
            }
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            for (int i = 0; i < LIMIT; i++) {
                results.add(registry.deliverAsync(request(other, i)));
            }
            // the receiver holds everything: the limited destination reaches its limit and no more; the other one
            // reaches its own limit beside it
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receiver.open("/limited") == LIMIT
                    && receiver.open("/other") == LIMIT);
            assertEquals(LIMIT, receiver.received("/limited"), "the rest waits in the destination's queue");
            assertEquals(36.0, meters.get("changestream.alert.deliveries.queued").tag("type", "WEBHOOK").gauge()
                    .value());
            assertEquals(2.0 * LIMIT, meters.get("changestream.alert.deliveries.in.flight").tag("type", "WEBHOOK")
                    .gauge().value());
            assertTrue(results.stream().noneMatch(CompletableFuture::isDone), "nothing answered yet");
            assertTrue(tookMillis < 5_000, "submitting never waits for the receiver (" + tookMillis + " ms)");

            receiver.open();
            CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS)
                    .join();
            assertTrue(results.stream().allMatch(r -> r.join().outcome() == Kind.DELIVERED), "all delivered");
            assertEquals(40, receiver.received("/limited"), "every request was sent once");
            assertEquals(LIMIT, receiver.maxOpen("/limited"), "never more than the limit at once");
            assertEquals(0.0, meters.get("changestream.alert.deliveries.in.flight").tag("type", "WEBHOOK").gauge()
                    .value());
        }
    }

    @Test
    void aStalledDestinationShedsItsQueueAndNewRequestsUnsentAndHoldsOnlyItsInFlightSlots() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TestClock clock = TestClock.frozenAt(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        try (HoldingReceiver receiver = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, LIMIT, 100, Duration.ofSeconds(2), clock)) {
            SubscriptionDestination stuck = Fixtures.destination("stuck", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/stuck") + "\"}");
            List<CompletableFuture<DeliveryResult>> queued = new ArrayList<>();
            for (int i = 0; i < LIMIT + 3; i++) {
                queued.add(registry.deliverAsync(request(stuck, i)));
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receiver.open("/stuck") == LIMIT);
            clock.advance(Duration.ofSeconds(3)); // every slot busy, no answer for longer than stallTimeout
            DeliveryResult next = registry.deliverAsync(request(stuck, 99)).join();
            assertTrue(next.shed() && next.throttled() && next.reason().contains("delivery.stallTimeout"),
                    next.toString());
            for (CompletableFuture<DeliveryResult> waiting : queued.subList(LIMIT, LIMIT + 3)) {
                assertTrue(waiting.isDone() && waiting.join().shed(), "the queue behind it is shed too");
            }
            assertEquals(0.0, meters.get("changestream.alert.deliveries.queued").tag("type", "WEBHOOK").gauge()
                    .value(), "nothing waits for the stuck destination any more");
            assertEquals(4.0, meters.get("changestream.alert.deliveries.shed").tag("type", "WEBHOOK")
                    .functionCounter().count());
            receiver.open();
            CompletableFuture.allOf(queued.subList(0, LIMIT).toArray(CompletableFuture[]::new))
                    .orTimeout(30, TimeUnit.SECONDS).join();
            assertEquals(LIMIT, receiver.received("/stuck"), "the shed requests were never sent");
        }
    }

    @Test
    void whenNothingMoreArrivesTheStallTimerShedsTheQueueAndARetryPathRequestKeepsItsPlace() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (HoldingReceiver receiver = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, LIMIT, 100, Duration.ofMillis(300), Clock.systemUTC())) {
            SubscriptionDestination stuck = Fixtures.destination("timer", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/timer") + "\"}");
            List<CompletableFuture<DeliveryResult>> sent = new ArrayList<>();
            for (int i = 0; i < LIMIT; i++) {
                sent.add(registry.deliverAsync(request(stuck, i)));
            }
            List<CompletableFuture<DeliveryResult>> queued = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                queued.add(registry.deliverAsync(request(stuck, LIMIT + i)));
            }
            CompletableFuture<DeliveryResult> patient = registry.deliverAsync(request(stuck, 50), Patience.WAIT);
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receiver.open("/timer") == LIMIT);
            // no new request comes (the main path parks behind the first shed one): the timer alone sheds the queue
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queued.stream().allMatch(
                    CompletableFuture::isDone));
            for (CompletableFuture<DeliveryResult> q : queued) {
                assertTrue(q.join().shed() && q.join().reason().contains("delivery.stallTimeout"), q.join().toString());
            }
            assertFalse(patient.isDone(), "the retry path's request waits for its turn however slow the destination");
            receiver.open();
            assertTrue(patient.orTimeout(30, TimeUnit.SECONDS).join().isDelivered());
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
            assertEquals(LIMIT + 1, receiver.received("/timer"), "the shed ones were never sent");
        }
    }

    @Test
    void aDestinationStartsWithFourRequestsInFlightAndGainsSlotsWhileItAnswersUpToItsLimit() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (HoldingReceiver receiver = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, 16, 1_000, Duration.ofMinutes(5), Clock.systemUTC())) {
            SubscriptionDestination d = Fixtures.destination("grows", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/grows") + "\"}");
            List<CompletableFuture<DeliveryResult>> first = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                first.add(registry.deliverAsync(request(d, i)));
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receiver.open("/grows") == 4);
            assertEquals(4, receiver.received("/grows"), "a destination with no answers yet holds 4 requests");
            receiver.open(); // it answers now: each answer at the limit opens one more slot, up to 16
            CompletableFuture.allOf(first.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
            assertEquals(40, receiver.received("/grows"));
            assertTrue(receiver.maxOpen("/grows") <= 16, "never past its limit: " + receiver.maxOpen("/grows"));
        }
    }

    @Test
    void destinationsWithSeventeenDistinctTimeoutsShareOneClientAndNeverAbortEachOther() throws Exception {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        CountDownLatch answered = new CountDownLatch(1);
        AtomicInteger received = new AtomicInteger();
        try (LoopbackHttpServer slow = LoopbackHttpServer.start(64, exchange -> {
                 exchange.getRequestBody().readAllBytes();
                 received.incrementAndGet();
                 try {
                     answered.await(1, TimeUnit.SECONDS); // every request is in flight while the others start
                 } catch (InterruptedException e) {
                     Thread.currentThread().interrupt();
                 }
                 exchange.sendResponseHeaders(200, -1);
                 exchange.close();
             });
             DestinationRegistry registry = registry(meters, 100)) {
            List<CompletableFuture<DeliveryResult>> results = new ArrayList<>();
            for (int timeout = 1; timeout <= 17; timeout++) {
                SubscriptionDestination d = new SubscriptionDestination("t" + timeout,
                        io.changestream.topics.model.SubscriptionCategory.EXTERNAL, SubscriptionType.WEBHOOK, timeout,
                        3, true, Fixtures.json("{\"endpoint\":\"" + slow.url("/t" + timeout) + "\"}"), null, null);
                results.add(registry.deliverAsync(request(d, timeout)));
            }
            List<DeliveryResult> all = CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
                    .thenApply(v -> results.stream().map(CompletableFuture::join).toList())
                    .orTimeout(30, TimeUnit.SECONDS).join();
            assertTrue(all.stream().allMatch(DeliveryResult::isDelivered), all.toString());
            assertEquals(17, received.get(), "each sent once, none aborted and re-sent");
        }
    }

    @Test
    void aFullQueueShedsTheCommitPathsRequestsUnsentWithTheQueueAndThrottlesARetryPathOne() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TestClock clock = TestClock.frozenAt(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        try (HoldingReceiver receiver = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, LIMIT, 3, Duration.ofSeconds(2), clock)) {
            SubscriptionDestination d = Fixtures.destination("full", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/full") + "\"}");
            List<CompletableFuture<DeliveryResult>> results = sendMany(registry, d, LIMIT + 3);
            DeliveryResult burst = registry.deliverAsync(request(d, 10)).join();
            assertTrue(burst.throttled() && burst.backpressure() && !burst.shed() && burst.reason().contains(
                    "delivery.maxQueuedPerDestination"), "a burst on its first requests waits inline: " + burst);
            clock.advance(Duration.ofMillis(600)); // no answer since the queue formed, for a quarter of stallTimeout
            results.add(registry.deliverAsync(request(d, 11)));
            List<DeliveryResult> refused = results.stream().filter(CompletableFuture::isDone)
                    .map(CompletableFuture::join).toList();
            assertEquals(4, refused.size(), "limit 4 + queue 3: the next one finds the queue full of a destination "
                    + "that answers nothing; it and the queue leave for the retry path");
            assertTrue(refused.stream().allMatch(r -> r.shed() && r.reason().contains(
                    "delivery.maxQueuedPerDestination")), refused.toString());

            SubscriptionDestination w = Fixtures.destination("full-wait", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/full-wait") + "\"}");
            List<CompletableFuture<DeliveryResult>> patient = new ArrayList<>();
            for (int i = 0; i < LIMIT + 3; i++) {
                patient.add(registry.deliverAsync(request(w, i), i < LIMIT ? Patience.SHED : Patience.WAIT));
            }
            clock.advance(Duration.ofMillis(600));
            DeliveryResult shed = registry.deliverAsync(request(w, 20), Patience.SHED).join();
            DeliveryResult waits = registry.deliverAsync(request(w, 21), Patience.WAIT).join();
            assertTrue(shed.shed(), "the commit path's request leaves: " + shed);
            assertTrue(patient.subList(LIMIT, LIMIT + 3).stream().noneMatch(CompletableFuture::isDone),
                    "the retry path's queued requests keep their place");
            assertTrue(waits.outcome() == Kind.RETRY && waits.throttled() && !waits.shed()
                    && waits.reason().contains("delivery.maxQueuedPerDestination"),
                    "the retry path's comes back later: " + waits);
            receiver.open();
            CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS)
                    .join();
            CompletableFuture.allOf(patient.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS)
                    .join();
            assertEquals(LIMIT, receiver.received("/full"), "the shed ones were never sent");
            assertEquals(LIMIT + 3, receiver.received("/full-wait"));
        }
    }

    @Test
    void aPromptDestinationsFullQueueWithoutAnswersForAWhileIsBackpressureUntilTheStallBound() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TestClock clock = TestClock.frozenAt(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        try (HoldingReceiver receiver = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, LIMIT, 3, Duration.ofSeconds(2), clock)) {
            SubscriptionDestination d = Fixtures.destination("prompt", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/prompt") + "\"}");
            List<CompletableFuture<DeliveryResult>> sent = fullQueue(registry, receiver, "/prompt", d);
            clock.advance(Duration.ofMillis(600)); // no answer since the queue formed, for a quarter of stallTimeout
            DeliveryResult behind = registry.deliverAsync(request(d, 20)).join();
            assertTrue(behind.throttled() && behind.backpressure() && !behind.shed(), "a destination known to "
                    + "answer promptly keeps its queue past a quarter of the stall bound (decision 2202): " + behind);
            assertEquals(2, sent.stream().filter(CompletableFuture::isDone).count(), "the queue keeps its place");
            assertFalse(behind.room().toCompletableFuture().isDone(), "no room yet: nothing left the queue");

            clock.advance(Duration.ofMillis(1_500)); // every slot busy, no answer for more than stallTimeout
            DeliveryResult stalled = registry.deliverAsync(request(d, 21)).join();
            assertTrue(stalled.shed() && stalled.reason().contains("delivery.stallTimeout"), stalled.toString());
            assertEquals(2 + 3, sent.stream().filter(CompletableFuture::isDone).count(), "the stalled "
                    + "destination's queue left with it");
            assertTrue(behind.room().toCompletableFuture().isDone(), "the held-back request is told at once when "
                    + "its destination stalls: it is shed when it comes back, rather than after its wait");
            receiver.open();
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
        }
    }

    @Test
    void aRequestHeldBackByAPromptDestinationsFullQueueIsToldWhenTheQueueHasRoom() throws Exception {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TestClock clock = TestClock.frozenAt(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        try (HoldingReceiver receiver = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, LIMIT, 3, Duration.ofSeconds(2), clock)) {
            SubscriptionDestination d = Fixtures.destination("told", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/told") + "\"}");
            List<CompletableFuture<DeliveryResult>> sent = fullQueue(registry, receiver, "/told", d);
            DeliveryResult behind = registry.deliverAsync(request(d, 20)).join();
            assertTrue(behind.backpressure() && behind.room() != null, behind.toString());
            DeliveryResult second = registry.deliverAsync(request(d, 21)).join();
            assertFalse(behind.room().toCompletableFuture().isDone() || second.room().toCompletableFuture().isDone(),
                    "no room while nothing leaves the queue");

            receiver.answer(1); // one answer: the oldest queued request goes on the wire, the queue has room for one
            behind.room().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertFalse(second.room().toCompletableFuture().isDone(), "one room, one told: the first held back");
            CompletableFuture<DeliveryResult> again = registry.deliverAsync(request(d, 20));
            assertFalse(again.isDone(), "told, it finds its place in the queue");
            sent.add(again);

            receiver.open();
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
            assertTrue(sent.stream().map(CompletableFuture::join).allMatch(DeliveryResult::isDelivered));
            assertTrue(second.room().toCompletableFuture().isDone(), "the rest are told as the queue drains");
        }
    }

    @Test
    void aFullQueueIsBackpressureWhileItsDestinationAnswersPromptlyAndAThrottleOnceItAnswersSlowly() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TestClock clock = TestClock.frozenAt(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        try (HoldingReceiver slow = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, LIMIT, 3, Duration.ofSeconds(2), clock)) {
            SubscriptionDestination d = Fixtures.destination("answers-slowly", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + slow.url("/slowly") + "\"}");
            List<CompletableFuture<DeliveryResult>> sent = sendMany(registry, d, LIMIT + 3);
            DeliveryResult cold = registry.deliverAsync(request(d, 10)).join();
            assertTrue(cold.throttled() && cold.backpressure() && !cold.shed(), "before its first answer, a full "
                    + "queue is the service's backpressure (it does not spend the inline budget): " + cold);
            List<CompletableFuture<DeliveryResult>> first = List.copyOf(sent.subList(0, LIMIT));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> slow.received("/slowly") == LIMIT);
            // the first four answer 600 ms later on the service's clock (above a quarter of the 2 s stall bound, well
            // within it); the later ones keep the destination's slot until the end
            clock.advance(Duration.ofMillis(600));
            slow.answer(LIMIT);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> first.stream()
                    .allMatch(CompletableFuture::isDone));
            DeliveryResult full = untilRefused(registry, d, sent); // the queued three run now: fill again
            assertTrue(full != null && full.throttled() && !full.backpressure(), "answers taking 600 ms: the "
                    + "destination is slow, its full queue spends the pair's inline budget (or leaves with it): "
                    + full + "; the requests before it: " + outcomes(sent));
            slow.open();
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
            assertTrue(sent.stream().map(CompletableFuture::join).allMatch(r -> r.isDelivered() || r.shed()),
                    "the rest were sent, or shed unsent to the retry path");
        }
    }

    @Test
    void aSlowFirstAnswerOfAColdServiceDoesNotMakeAPromptDestinationSlow() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        TestClock clock = TestClock.frozenAt(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        try (HoldingReceiver receiver = new HoldingReceiver();
             DestinationRegistry registry = registry(meters, LIMIT, 3, Duration.ofSeconds(2), clock)) {
            SubscriptionDestination d = Fixtures.destination("cold", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.url("/cold") + "\"}");
            List<CompletableFuture<DeliveryResult>> sent = sendMany(registry, d, 2);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> receiver.received("/cold") == 2);
            clock.advance(Duration.ofMillis(800)); // the first answer takes 800 ms (a cold JVM, a new connection)
            receiver.answer(1);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> sent.stream()
                    .filter(CompletableFuture::isDone).count() == 1);
            for (int i = 0; i < 3; i++) { // three more on the wire beside the one still held
                sent.add(registry.deliverAsync(request(d, 10 + i)));
            }
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> receiver.received("/cold") == 5);
            receiver.answer(3); // at once: the mean of four answers is at most 400 ms, under a quarter of 2 s
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> sent.stream()
                    .filter(CompletableFuture::isDone).count() == 4);
            DeliveryResult full = untilRefused(registry, d, sent);
            assertTrue(full != null && full.backpressure() && !full.shed(), "four answers, one slow: the "
                    + "destination answers promptly, its full queue is the service's backpressure (a moving average "
                    + "that gave the first answer 31/32 of the weight kept it slow for dozens): " + full);
            receiver.open();
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).orTimeout(30, TimeUnit.SECONDS).join();
            assertTrue(sent.stream().map(CompletableFuture::join).allMatch(DeliveryResult::isDelivered));
        }
    }

    @Test
    void theAsynchronousClientSendsPlainHttp11WithoutUpgradeHeaders() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LocalReceiver receiver = new LocalReceiver(); DestinationRegistry registry = registry(meters, 10)) {
            SubscriptionDestination d = Fixtures.destination("plain", SubscriptionType.WEBHOOK,
                    "{\"endpoint\":\"" + receiver.uri("/plain") + "\"}");
            assertEquals(Kind.DELIVERED, registry.deliverAsync(request(d, 0)).orTimeout(30, TimeUnit.SECONDS)
                    .join().outcome());
            LocalReceiver.Received got = receiver.received().get(0);
            assertEquals(null, got.header("Upgrade"), "no h2c upgrade on http:");
            assertEquals(null, got.header("HTTP2-Settings"), "no h2c upgrade on http:");
            assertTrue(got.header("Idempotency-Key") != null);
        }
    }
}
