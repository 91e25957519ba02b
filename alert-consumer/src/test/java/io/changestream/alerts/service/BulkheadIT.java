package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.model.ChangeEvent;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 on the real broker with real receivers: a receiver that accepts and never answers, beside a healthy
 * subscription on the same events, slows no one — the healthy one gets every event and the group commits to the end
 * while the other still hangs, holding only a handful of requests — and after it recovers and is resumed every
 * event reaches it, the rest once each and in per-entity order; an at-most-once destination answering
 * {@code 503 Retry-After} leaves the commit path for the retry path like any other, and is sent each event once; a
 * destination whose {@code timeout + readTimeout} is longer than {@code delivery.maxRequestTime} is a 400 naming the
 * field.
 */
class BulkheadIT {

    private static final int ENTITIES = 20;
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void aReceiverThatNeverAnswersSlowsNoOneAndGetsEverythingInOrderAfterItRecovers() throws Exception {
        RetryPathFixture setup = RetryPathFixture.of(broker, "bulkhead-hang");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.hold("/hang");
            create(a.httpPort(), request("healthy", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/ok"), null) + "]", 3));
            String hanging = create(a.httpPort(), request("hanging", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/hang"), null) + "]", 1000));
            List<ChangeEvent> events = RetryPathFixture.events("bulkhead-entity-", 400, ENTITIES);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);

            Awaitility.await("the healthy subscription gets everything while the other receiver hangs")
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> receiver.hits("/ok").size() >= events.size());
            Awaitility.await("the group commits to the end: the hanging destination's pairs left the commit path")
                    .atMost(Duration.ofSeconds(30)).until(() -> setup.lag() == 0);
            int held = receiver.hits("/hang").size();
            assertTrue(held <= 12, "a receiver that never answers holds a handful of requests, not one per event: "
                    + held);

            receiver.release("/hang");
            int before = receiver.hits("/hang").size();
            assertEquals(200, call(a.httpPort(), "POST", "/api/v1/events/subscriptions/" + hanging + "/resume",
                    null).status());
            Awaitility.await("every event reaches the recovered receiver").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200)).until(() -> RetryPathFixture.ids(receiver.hits("/hang")).size()
                            >= events.size());
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
            List<Receiver.Hit> all = receiver.hits("/hang");
            Set<String> hungIds = RetryPathFixture.ids(all.subList(0, before)); // sent while it hung: never answered, sent again
            RetryPathFixture.assertOncePerEventInEntityOrder(all.subList(before, all.size()), events, hungIds);
            assertEquals(events.size(), receiver.hits("/ok").size(), "the healthy receiver got each event once");
        }
    }

    @Test
    void anAtMostOnceDestinationAnswering503RetryAfterTakesTheRetryPathAndIsSentEachEventOnce() throws Exception {
        RetryPathFixture setup = RetryPathFixture.of(broker, "bulkhead-amo");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/amo", 503).retryAfter("/amo", "3600");
            String amo = create(a.httpPort(), request("amo", "[\"all\"]", "[]", "[" + webhook("Webhook",
                    receiver.url("/amo"), null).replace("\"config\": {", "\"config\": {\"delivery\": \"atMostOnce\", ")
                    + "]", 1000));
            List<ChangeEvent> events = RetryPathFixture.events("bulkhead-entity-", 60, ENTITIES);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await("the refused pairs leave the commit path").atMost(Duration.ofSeconds(60))
                    .until(() -> setup.lag() == 0 && a.retry().depth() == events.size());
            int refused = receiver.hits("/amo").size();
            receiver.retryAfter("/amo", null).always("/amo", 200);
            assertEquals(200, call(a.httpPort(), "POST", "/api/v1/events/subscriptions/" + amo + "/resume",
                    null).status());
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> receiver.hits("/amo").size() - refused >= events.size());
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
            List<Receiver.Hit> all = receiver.hits("/amo");
            RetryPathFixture.assertOncePerEventInEntityOrder(all.subList(refused, all.size()), events, Set.of());
        }
    }

    @Test
    void aPromptDestinationBehindItsFullQueueStaysOnTheCommitPathPastTheInlineBudgetAndASlowOneLeavesIt()
            throws Exception {
        RetryPathFixture setup = RetryPathFixture.of(broker, "bulkhead-behind");
        Map<String, String> settings = new HashMap<>(setup.settings()); // inline budget 1 s
        settings.put("delivery.maxConcurrentPerDestination", "1");
        settings.put("delivery.maxQueuedPerDestination", "1");
        // a wait for a full queue is no attempt (decision 2203): past three, the runtime would dead-letter the event
        settings.put("runtime.maxAttempts", "3");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(settings))) {
            receiver.slowEvery("/prompt", 1, Duration.ofMillis(20)).slowEvery("/slow", 1, Duration.ofMillis(700));
            create(a.httpPort(), request("prompt", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/prompt"), null) + "]", 3));
            // one first, so the service's first request (connections, JIT) is not the one that finds a full queue
            AlertTestSupport.produce(broker, setup.catalog().changes().name(),
                    RetryPathFixture.events("bulkhead-warm-", 1, 1));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> receiver.hits("/prompt").size() == 1);
            List<ChangeEvent> events = RetryPathFixture.events("bulkhead-behind-", 150, ENTITIES);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await("one request at a time, 20 ms each: several inline budgets").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100)).until(() -> receiver.hits("/prompt").size() > events.size());
            List<Receiver.Hit> prompt = receiver.hits("/prompt");
            RetryPathFixture.assertOncePerEventInEntityOrder(prompt.subList(1, prompt.size()), events, Set.of());
            assertEquals(0.0, handoffs(a), "a destination answering in 20 ms is not failing: its pairs waited behind "
                    + "its full queue on the commit path (decision 2202), none went to the retry path");

            create(a.httpPort(), request("slow", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/slow"), null) + "]", 3));
            List<ChangeEvent> more = RetryPathFixture.events("bulkhead-slow-", 12, 4);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), more);
            Awaitility.await("every event reaches the slow receiver").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200)).until(() -> receiver.hits("/slow").size() >= more.size());
            RetryPathFixture.assertOncePerEventInEntityOrder(receiver.hits("/slow"), more, Set.of());
            assertTrue(handoffs(a) > 0, "a destination answering in 700 ms (above a quarter of delivery.stallTimeout)"
                    + " behind its full queue spends the inline budget: its pairs leave the commit path");
        }
    }

    private static double handoffs(AlertService service) {
        return service.meters().find("changestream.alert.retry.handoffs").counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    @Test
    void aDestinationAskingForMoreThanMaxRequestTimeIsA400NamingTheField() {
        RetryPathFixture setup = RetryPathFixture.of(broker, "bulkhead-deadline");
        try (AlertService a = AlertService.start(AlertTestSupport.config(setup.settings()))) {
            String destination = webhook("Webhook", "http://127.0.0.1:1/x", null)
                    .replace("\"timeout\": 2, \"readTimeout\": 3", "\"timeout\": 3600, \"readTimeout\": 3600");
            AlertTestSupport.Answer answer = call(a.httpPort(), "POST", "/api/v1/events/subscriptions",
                    request("too-long", "[\"all\"]", "[]", "[" + destination + "]", 3));
            assertEquals(400, answer.status(), answer.body());
            assertTrue(answer.body().contains("destinations[0].timeout")
                    && answer.body().contains("delivery.maxRequestTime"), answer.body());
        }
    }

}
