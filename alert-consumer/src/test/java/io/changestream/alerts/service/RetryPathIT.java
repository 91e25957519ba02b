package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The retry path (issue 11 item 3, decision 1120) on the real broker with real receivers: a receiver answering
 * {@code 503 Retry-After: 3600} stalls no one (the healthy subscription gets everything, the group commits to the
 * end) while its pairs are parked on {@code alert-retry}, a CDC repeat of a parked event is not delivered twice, and
 * after the receiver recovers and the destination is resumed every pair arrives once, in per-entity order; a
 * {@code 410} suspends the destination group-wide and durably (a second instance started later shows it) without a
 * dead letter; an at-most-once request of the retry path that gets no answer is dead-lettered, not sent again; a
 * kill -9 of the instance owning the retry path loses nothing.
 */
class RetryPathIT {

    private static final int ENTITIES = 10;
    private final KafkaBroker broker = Brokers.shared();

    @Test
    void aDeadReceiverStallsNoOneAndItsParkedPairsArriveInOrderAfterResume() throws Exception {
        Setup setup = setup("dead");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/dead", 503).retryAfter("/dead", "3600");
            String healthy = create(a.httpPort(), request("healthy", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/ok"), null) + "]", 3));
            String dead = create(a.httpPort(), request("dead", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/dead"), null) + "]", 1000));
            List<ChangeEvent> events = events(300);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);

            Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> receiver.hits("/ok").size() >= events.size());
            Awaitility.await("the group commits to the end while the dead receiver's pairs wait")
                    .atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0);
            Awaitility.await("every pair of the dead destination is parked on alert-retry")
                    .atMost(Duration.ofSeconds(30)).until(() -> a.retry().depth() == events.size());
            // deliveries run concurrently: each entity's first event may be on its way before the first 503 came
            // back; after it, the receiver's Retry-After pauses the destination and the rest are parked unsent
            assertTrue(receiver.hits("/dead").size() <= ENTITIES, "the dead receiver is not hammered: "
                    + receiver.hits("/dead").size() + " requests");
            assertEquals("awaitingRetry", status(a, dead), "the status API shows the wait");
            assertEquals("active", status(a, healthy));
            String metrics = call(a.httpPort(), "GET", "/metrics", null, null).body();
            assertTrue(metrics.contains("changestream_alert_retry_depth " + events.size() + ".0"), metrics);
            AlertEndToEndIT.assertPromtoolAccepts(metrics);

            // a CDC repeat of parked events (same ids, later offsets) is neither handed off nor delivered again
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events.subList(0, 20));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> lag(setup) == 0);

            int before = receiver.hits("/dead").size();
            receiver.retryAfter("/dead", null).always("/dead", 200);
            AlertTestSupport.Answer resumed = call(a.httpPort(), "POST",
                    "/api/v1/events/subscriptions/" + dead + "/resume", null);
            assertEquals(200, resumed.status(), resumed.body());
            Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
                    distinct(receiver.hits("/dead")) >= events.size());
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
            assertOncePerEventInEntityOrder(since(receiver.hits("/dead"), before),
                    events);
            assertEquals(events.size(), receiver.hits("/ok").size(), "the healthy receiver got each event once");
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> a.retry().depth() == 0
                    && "active".equals(status(a, dead)));
            // the instance's summary counts the pairs its retry path settled, each once, beside the first path's
            for (String id : List.of(dead, healthy)) {
                assertEquals(events.size(), call(a.httpPort(), "GET", "/api/v1/events/subscriptions/" + id
                        + "/summary", null).json().get("deliveredEvents").asLong(), id + ": summary");
            }
        }
    }

    @Test
    void goneSuspendsTheDestinationGroupWideAndResumeDeliversInOrder() throws Exception {
        Setup setup = setup("gone");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/gone", 410);
            String gone = create(a.httpPort(), request("gone", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/gone"), null) + "]", 3));
            List<ChangeEvent> events = events(100);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);

            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                    && a.retry().depth() == events.size());
            assertTrue(call(a.httpPort(), "GET", "/metrics", null, null).body()
                    .contains("changestream_alert_destinations_suspended 1.0"));
            JsonNode destination = statusJson(a, gone);
            assertEquals("disabled", destination.get("status").asText());
            assertTrue(destination.get("lastFailedReason").asText().contains("410"), destination.toString());
            // concurrent deliveries: each entity's first event may be sent before the first 410 suspended it
            assertTrue(receiver.hits("/gone").size() <= ENTITIES, "parked, not sent: " + receiver.hits("/gone").size());
            assertEquals(0, io.changestream.testkit.KafkaTestClients.readAll(broker, setup.catalog().alertDlq().name(), Duration.ofSeconds(5)).size(),
                    "parked, not dead-lettered");

            // a second instance, started after the suspension, knows it (durable, group-wide) and resumes it
            Map<String, String> second = new HashMap<>(setup.settings());
            try (AlertService b = AlertService.start(AlertTestSupport.config(second))) {
                assertEquals("disabled", statusJson(b, gone).get("status").asText());
                int before = receiver.hits("/gone").size();
                receiver.always("/gone", 200);
                assertEquals(200, call(b.httpPort(), "POST", "/api/v1/events/subscriptions/" + gone + "/resume",
                        null).status());
                Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
                        distinct(since(receiver.hits("/gone"), before))
                                >= events.size());
                Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
                assertOncePerEventInEntityOrder(since(receiver.hits("/gone"), before),
                        events);
                assertEquals("active", statusJson(a, gone).get("status").asText());
                assertEquals(400, call(b.httpPort(), "POST", "/api/v1/events/subscriptions/" + gone
                        + "/resume?destination=nope", null).status(), "an unknown destination is a 400");
                assertEquals(404, call(b.httpPort(), "POST", "/api/v1/events/subscriptions/"
                        + UUID.randomUUID() + "/resume", null).status());
            }
        }
    }

    @Test
    void anAtMostOnceRequestOfTheRetryPathThatGetsNoAnswerIsDeadLetteredNotSentAgain() throws Exception {
        Setup setup = setup("amo");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/amo", 410);
            String amo = create(a.httpPort(), request("amo", "[\"all\"]", "[]", "[" + webhook("Webhook",
                    receiver.url("/amo"), null).replace("\"readTimeout\": 3", "\"readTimeout\": 1")
                    .replace("\"config\": {", "\"config\": {\"delivery\": \"atMostOnce\", ") + "]", 5));
            List<ChangeEvent> events = events(4);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                    && a.retry().depth() == events.size() && "disabled".equals(status(a, amo)));

            // resumed while the receiver takes requests and never answers: each parked pair is sent once, and
            // with its outcome unknown it is dead-lettered, never sent again
            int before = receiver.hits("/amo").size();
            receiver.hold("/amo");
            assertEquals(200, call(a.httpPort(), "POST", "/api/v1/events/subscriptions/" + amo + "/resume",
                    null).status());
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> io.changestream.testkit.KafkaTestClients
                    .readAll(broker, setup.catalog().alertDlq().name(), Duration.ofSeconds(2)).size()
                    >= events.size());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> a.retry().depth() == 0);
            Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> true);
            List<Receiver.Hit> sent = since(receiver.hits("/amo"), before);
            assertEquals(events.size(), sent.size(), "one request per parked pair: " + sent.size());
            assertEquals(events.size(), distinct(sent), "no pair sent twice");
            var dlq = io.changestream.testkit.KafkaTestClients.readAll(broker, setup.catalog().alertDlq().name(),
                    Duration.ofSeconds(5));
            assertEquals(events.size(), dlq.size());
            dlq.forEach(r -> assertTrue(io.changestream.topics.serde.Serdes.failedEvent().fromJson(r.value())
                    .reason().startsWith(io.changestream.alerts.pipeline.AlertProcessor.UNANSWERED), r.value()));
            receiver.release("/amo");
        }
    }

    @Test
    void anAtMostOnceSendOfTheRetryPathCutByAKillIsDeadLetteredByTheNextOwnerNotSentAgain() throws Exception {
        Setup setup = setup("amokill");
        Path dir = Files.createDirectories(Path.of("target", "retry-kill", setup.catalog().namespace()));
        Process victim = null;
        try (Receiver receiver = new Receiver()) {
            receiver.always("/amo", 410);
            victim = ChildInstances.start(dir, setup.settings(), 1);
            int port = ChildInstances.ready(dir, 1);
            String amo = create(port, request("amokill", "[\"all\"]", "[]", "[" + webhook("Webhook",
                    receiver.url("/amo"), null).replace("\"readTimeout\": 3", "\"readTimeout\": 25")
                    .replace("\"config\": {", "\"config\": {\"delivery\": \"atMostOnce\", ") + "]", 5));
            List<ChangeEvent> events = events(4);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                    && retryRecords(setup) >= events.size() && "disabled".equals(status(port, amo)));

            // resumed while the receiver takes requests and never answers; killed while they are on the wire
            int before = receiver.hits("/amo").size();
            receiver.hold("/amo");
            assertEquals(200, call(port, "POST", "/api/v1/events/subscriptions/" + amo + "/resume", null).status());
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receiver.hits("/amo").size() - before
                    >= events.size());
            victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            receiver.release("/amo").always("/amo", 200);

            try (AlertService b = AlertService.start(AlertTestSupport.config(setup.settings()))) {
                Awaitility.await("the next owner settles what was attempted").atMost(Duration.ofSeconds(60))
                        .until(() -> io.changestream.testkit.KafkaTestClients.readAll(broker,
                                setup.catalog().alertDlq().name(), Duration.ofSeconds(2)).size() >= events.size());
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> b.retry().depth() == 0);
                Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> true);
                List<Receiver.Hit> sent = since(receiver.hits("/amo"), before);
                assertEquals(events.size(), sent.size(), "each attempted pair went out once, never again: "
                        + sent.size());
                var dlq = io.changestream.testkit.KafkaTestClients.readAll(broker,
                        setup.catalog().alertDlq().name(), Duration.ofSeconds(5));
                assertEquals(events.size(), dlq.size());
                dlq.forEach(r -> assertEquals(io.changestream.alerts.pipeline.AlertProcessor.UNKNOWN_OUTCOME,
                        io.changestream.topics.serde.Serdes.failedEvent().fromJson(r.value()).reason(), r.value()));
            }
        } finally {
            if (victim != null) {
                victim.destroyForcibly();
            }
        }
    }

    @Test
    void aBackoffPastTheBudgetHandsOffAndAFailureStreakSuspends() throws Exception {
        Setup setup = setup("streak");
        setup.settings().put("retry.initialBackoff", "PT0.2S");
        setup.settings().put("retry.maxBackoff", "PT0.4S");
        setup.settings().put("retry.suspendAfterFailures", "3");
        setup.settings().put("destinations.breaker.openDuration", "PT1S");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/flaky", 500); // no Retry-After: the inline backoff runs past the 1 s budget
            String flaky = create(a.httpPort(), request("flaky", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/flaky"), null) + "]", 1000));
            List<ChangeEvent> events = events(20);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> "disabled".equals(status(a, flaky)));
            JsonNode destination = statusJson(a, flaky);
            assertTrue(destination.get("lastFailedReason").asText().contains("3 consecutive failures"),
                    destination.toString());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> lag(setup) == 0);
            assertEquals(0, io.changestream.testkit.KafkaTestClients.readAll(broker,
                    setup.catalog().alertDlq().name(), Duration.ofSeconds(5)).size(), "parked, not dead-lettered");

            int before = receiver.hits("/flaky").size();
            receiver.always("/flaky", 200);
            assertEquals(200, call(a.httpPort(), "POST", "/api/v1/events/subscriptions/" + flaky + "/resume",
                    null).status());
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                    distinct(since(receiver.hits("/flaky"), before))
                            >= events.size());
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
            assertOncePerEventInEntityOrder(since(receiver.hits("/flaky"), before)
                    .stream().filter(h -> h.body() != null).toList(), events);
        }
    }

    @Test
    void theRetryPathSurvivesAKillOfItsOwnerNothingLost() throws Exception {
        Setup setup = setup("kill");
        Path dir = Files.createDirectories(Path.of("target", "retry-kill", setup.catalog().namespace()));
        Process victim = null;
        try (Receiver receiver = new Receiver()) {
            receiver.always("/dead", 503).retryAfter("/dead", "3600");
            victim = ChildInstances.start(dir, setup.settings(), 1);
            int port = ChildInstances.ready(dir, 1);
            String dead = create(port, request("dead", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/dead"), null) + "]", 1000));
            List<ChangeEvent> events = events(200);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0);
            // the owner of every alert-retry partition holds the parked pairs; kill it without a goodbye
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> retryRecords(setup) >= events.size());
            victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);

            try (AlertService b = AlertService.start(AlertTestSupport.config(setup.settings()))) {
                int before = receiver.hits("/dead").size();
                receiver.retryAfter("/dead", null).always("/dead", 200);
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> call(b.httpPort(), "POST",
                        "/api/v1/events/subscriptions/" + dead + "/resume", null).status() == 200);
                Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() ->
                        distinct(since(receiver.hits("/dead"), before))
                                >= events.size());
                Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
                assertOncePerEventInEntityOrder(since(receiver.hits("/dead"), before),
                        events);
            }
        } finally {
            if (victim != null) {
                victim.destroyForcibly();
            }
        }
    }

    @Test
    void tenThousandParkedPairsOfOneDestinationHoldBackNoOtherDestination() throws Exception {
        Setup setup = setup("bulkhead");
        setup.settings().put("retry.maxHeldPerDestination", "200");
        // both destinations on one alert-retry partition: parked pairs must not hold back a neighbour's
        String[] ids = samePartition(setup.catalog().alertRetry().partitions());
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/gone", 410);
            String parked = create(a.httpPort(), request("parked", "[\"all\"]", "[]",
                    "[" + withId(webhook("Webhook", receiver.url("/gone"), null), ids[0]) + "]", 3));
            List<ChangeEvent> events = events(10_000);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await("10,000 pairs parked behind the suspension").atMost(Duration.ofSeconds(240))
                    .pollInterval(Duration.ofSeconds(1)).until(() -> lag(setup) == 0
                            && a.retry().depth() >= events.size());
            assertEquals("disabled", status(a, parked));
            double held = meter(a, "changestream_alert_retry_held");
            assertTrue(held <= 200, "at most retry.maxHeldPerDestination held in memory: " + held);

            // a second destination on the same alert-retry partition whose receiver asks for a short wait
            receiver.then("/other", 503).retryAfter("/other", "2").always("/other", 200);
            create(a.httpPort(), request("other", "[\"all\"]", "[]",
                    "[" + withId(webhook("Webhook", receiver.url("/other"), null), ids[1]) + "]", 3));
            List<ChangeEvent> more = events(20);
            long start = System.nanoTime();
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), more);
            // the first request got the 503: its pair (and those parked behind it) went out through the retry path
            Awaitility.await("the neighbour's pairs go out through the retry path, not behind the parked ones")
                    .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> distinct(receiver.hits("/other")) >= more.size()
                            && receiver.hits("/other").size() > more.size()
                            && meter(a, "changestream_alert_retry_settled_total{result=\"delivered\"}") >= 1);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            // the first hit is the scripted 503; its event went out again through the retry path
            assertOncePerEventInEntityOrder(receiver.hits("/other").stream().skip(1).toList(), more);
            assertTrue(a.retry().depth() >= events.size(), "the parked pairs are still parked");
            assertTrue(tookMs < 30_000, "the neighbour waited " + tookMs + " ms");

            // resumed: all 10,020 go out once, in entity order, read again from the topic 200 at a time
            int before = receiver.hits("/gone").size();
            receiver.always("/gone", 200);
            assertEquals(200, call(a.httpPort(), "POST", "/api/v1/events/subscriptions/" + parked + "/resume",
                    null).status());
            List<ChangeEvent> all = new ArrayList<>(events);
            all.addAll(more);
            Awaitility.await().atMost(Duration.ofSeconds(300)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
                    assertTrue(distinct(since(receiver.hits("/gone"), before)) >= all.size(), "delivered "
                            + distinct(since(receiver.hits("/gone"), before)) + " of " + all.size()));
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
            // the sends refused before the first 410 suspended it were parked too: all arrive once, in order
            assertOncePerEventInEntityOrder(since(receiver.hits("/gone"), before), all);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> a.retry().depth() == 0);
        }
    }

    @Test
    void aReceiverThatHangsOnTheRetryPathHoldsBackNoOtherDestination() throws Exception {
        Setup setup = setup("hang");
        setup.settings().put("retry.lanes", "1"); // one worker: a send that held it would hold back everybody
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/h", 410);
            // 2 + 25 s: about the longest a destination may ask for (delivery.maxRequestTime 30 s)
            String hanging = create(a.httpPort(), request("hanging", "[\"all\"]", "[]", "[" + webhook("Webhook",
                    receiver.url("/h"), null).replace("\"readTimeout\": 3", "\"readTimeout\": 25") + "]", 3));
            List<ChangeEvent> first = events(5);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), first);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                    && a.retry().depth() == first.size() && "disabled".equals(status(a, hanging)));

            // resumed into a receiver that takes the request and answers only after 20 s
            int before = receiver.hits("/h").size();
            receiver.always("/h", 200).hold("/h");
            assertEquals(200, call(a.httpPort(), "POST", "/api/v1/events/subscriptions/" + hanging + "/resume",
                    null).status());
            Awaitility.await("the retry path's send hangs").atMost(Duration.ofSeconds(10))
                    .until(() -> receiver.hits("/h").size() > before);

            receiver.then("/n", 503).retryAfter("/n", "2").always("/n", 200);
            create(a.httpPort(), request("neighbour", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/n"), null) + "]", 3));
            List<ChangeEvent> more = events(5);
            long start = System.nanoTime();
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), more);
            // the first request got the 503: its pair (and those parked behind it) went out through the retry path
            Awaitility.await("the neighbour's retries go out while the other send hangs")
                    .atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100))
                    .until(() -> distinct(receiver.hits("/n")) >= more.size()
                            && receiver.hits("/n").size() > more.size() && meter(a, "changestream_alert_retry_settled_total{result=\"delivered\"}") >= 1);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs < 12_000, "the neighbour waited " + tookMs + " ms behind a hanging send");

            receiver.release("/h");
            List<ChangeEvent> all = new ArrayList<>(first);
            all.addAll(more);
            Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
                    distinct(since(receiver.hits("/h"), before)) >= all.size());
            Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
            assertOncePerEventInEntityOrder(since(receiver.hits("/h"), before), all);
        }
    }

    @Test
    void deletingOrDisablingASubscriptionSettlesItsParkedPairs() throws Exception {
        Setup setup = setup("delete");
        try (Receiver receiver = new Receiver(); AlertService a = AlertService.start(
                AlertTestSupport.config(setup.settings()))) {
            receiver.always("/deleted", 410).always("/disabled", 410);
            String deleted = create(a.httpPort(), request("deleted", "[\"all\"]", "[]",
                    "[" + webhook("Webhook", receiver.url("/deleted"), null) + "]", 3));
            // the disabled one keeps its destination id across the PUT: its destination stays suspended
            String disabledRequest = request("disabled", "[\"all\"]", "[]", "[" + withId(webhook("Webhook",
                    receiver.url("/disabled"), null), UUID.randomUUID().toString()) + "]", 3);
            String disabled = create(a.httpPort(), disabledRequest);
            List<ChangeEvent> events = events(50);
            AlertTestSupport.produce(broker, setup.catalog().changes().name(), events);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                    && a.retry().depth() == 2L * events.size() && "disabled".equals(status(a, deleted))
                    && "disabled".equals(status(a, disabled)));
            int sentDeleted = receiver.hits("/deleted").size();
            int sentDisabled = receiver.hits("/disabled").size();

            assertEquals(200, call(a.httpPort(), "DELETE", "/api/v1/events/subscriptions/" + deleted, null)
                    .status());
            assertEquals(200, call(a.httpPort(), "PUT", "/api/v1/events/subscriptions",
                    disabledRequest.replace("\"retries\"", "\"enabled\": false, \"retries\"")).status());
            Awaitility.await("the parked pairs of both are settled").atMost(Duration.ofSeconds(60))
                    .until(() -> a.retry().depth() == 0);
            var dlq = io.changestream.testkit.KafkaTestClients.readAll(broker, setup.catalog().alertDlq().name(),
                    Duration.ofSeconds(5)).stream().map(r -> io.changestream.topics.serde.Serdes.failedEvent()
                    .fromJson(r.value())).toList();
            assertEquals(2 * events.size(), dlq.stream().filter(f -> f.reason().endsWith(
                    "while parked on the retry path")).count(), "each parked pair dead-lettered once");
            assertEquals(events.size(), dlq.stream().filter(f -> f.subscriptionId().equals(deleted)
                    && f.reason().startsWith("subscription deleted")).map(f -> f.changeEvent().id()).distinct()
                    .count());
            assertEquals(events.size(), dlq.stream().filter(f -> f.subscriptionId().equals(disabled)
                    && f.reason().startsWith("subscription disabled")).map(f -> f.changeEvent().id()).distinct()
                    .count());
            assertEquals(2.0 * events.size(), meter(a, "changestream_alert_retry_settled_total{result=\"dropped\"}"));
            Awaitility.await("the deleted subscription's destination is no longer counted as suspended")
                    .atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(1.0,
                            meter(a, "changestream_alert_destinations_suspended"), "the disabled one's stays (re-enabled, it is resumed by hand)"));
            assertEquals(sentDeleted, receiver.hits("/deleted").size(), "nothing sent after the delete");
            assertEquals(sentDisabled, receiver.hits("/disabled").size(), "nothing sent after the disable");
        }
    }

    @Test
    void raisingAlertRetrysPartitionsWhilePairsAreParkedLosesNothing() throws Exception {
        Setup setup = setup("grow");
        int before = setup.catalog().alertRetry().partitions();
        String id = movingPartition(before, 2 * before);
        try (Receiver receiver = new Receiver()) {
            receiver.always("/d", 410);
            List<ChangeEvent> first = events(100);
            List<ChangeEvent> parked = events(100);
            List<ChangeEvent> later = events(50);
            String sub;
            try (AlertService a = AlertService.start(AlertTestSupport.config(setup.settings()))) {
                sub = create(a.httpPort(), request("grow", "[\"all\"]", "[]",
                        "[" + withId(webhook("Webhook", receiver.url("/d"), null), id) + "]", 1000));
                // some records delivered by the retry path first: the destination's progress there is past 0
                AlertTestSupport.produce(broker, setup.catalog().changes().name(), first);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                        && a.retry().depth() == first.size());
                receiver.always("/d", 200);
                assertEquals(200, call(a.httpPort(), "POST", "/api/v1/events/subscriptions/" + sub + "/resume",
                        null).status());
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> a.retry().depth() == 0);
                receiver.always("/d", 410);
                AlertTestSupport.produce(broker, setup.catalog().changes().name(), parked);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                        && a.retry().depth() == parked.size() && "disabled".equals(status(a, sub)));
            }
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.bootstrapServers()))) {
                admin.createPartitions(Map.of(setup.catalog().alertRetry().name(),
                        org.apache.kafka.clients.admin.NewPartitions.increaseTo(2 * before))).all()
                        .get(30, TimeUnit.SECONDS);
            }
            int sentBefore = receiver.hits("/d").size();
            try (AlertService b = AlertService.start(AlertTestSupport.config(setup.settings()))) {
                AlertTestSupport.produce(broker, setup.catalog().changes().name(), later);
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> lag(setup) == 0
                        && b.retry().depth() == parked.size() + later.size());
                receiver.always("/d", 200);
                assertEquals(200, call(b.httpPort(), "POST", "/api/v1/events/subscriptions/" + sub + "/resume",
                        null).status());
                List<ChangeEvent> expected = new ArrayList<>(parked);
                expected.addAll(later);
                Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
                        distinct(since(receiver.hits("/d"), sentBefore)) >= expected.size());
                Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
                List<Receiver.Hit> sent = since(receiver.hits("/d"), sentBefore);
                assertOncePerEventInEntityOrder(sent, expected);
            }
        }
    }

    /** A destination JSON with a caller-chosen id. */
    private static String withId(String destination, String id) {
        return destination.replaceFirst("\\{", "{\"id\": \"" + id + "\", ");
    }

    private static int partitionOf(String destinationKey, int partitions) {
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(
                destinationKey.getBytes(java.nio.charset.StandardCharsets.UTF_8))) % partitions;
    }

    /** Two destination ids on one alert-retry partition. */
    private static String[] samePartition(int partitions) {
        String first = UUID.randomUUID().toString();
        while (true) {
            String second = UUID.randomUUID().toString();
            if (partitionOf(second, partitions) == partitionOf(first, partitions)) {
                return new String[] {first, second};
            }
        }
    }

    /** A destination id whose partition by key differs between the two partition counts. */
    private static String movingPartition(int before, int after) {
        while (true) {
            String id = UUID.randomUUID().toString();
            if (partitionOf(id, before) != partitionOf(id, after)) {
                return id;
            }
        }
    }

    /** A meter's value from /metrics (name with its tags as Prometheus prints them), 0 when absent. */
    private static double meter(AlertService s, String series) {
        for (String line : call(s.httpPort(), "GET", "/metrics", null, null).body().split("\n")) {
            if (line.startsWith(series + " ") || (series.indexOf('{') < 0 && line.startsWith(series + "{"))) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
            if (series.indexOf('{') > 0 && line.startsWith(series.substring(0, series.indexOf('{')) + "{")
                    && line.contains(series.substring(series.indexOf('{') + 1, series.length() - 1))) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    /** The hits after the first {@code before} of one snapshot (the receiver keeps adding to its list). */
    private static List<Receiver.Hit> since(List<Receiver.Hit> hits, int before) {
        return hits.subList(before, hits.size());
    }

    private record Setup(TopicCatalog catalog, Map<String, String> settings) {
    }

    private Setup setup(String name) {
        RetryPathFixture fixture = RetryPathFixture.of(broker, "retry-" + name);
        return new Setup(fixture.catalog(), fixture.settings());
    }

    /** {@code count} events over {@value #ENTITIES} entities, in produce order. */
    private static List<ChangeEvent> events(int count) {
        return RetryPathFixture.events("retry-entity-", count, ENTITIES);
    }

    /** Every event exactly once, and per entity in the order produced. */
    private static void assertOncePerEventInEntityOrder(List<Receiver.Hit> hits, List<ChangeEvent> events) {
        RetryPathFixture.assertOncePerEventInEntityOrder(hits, events, Set.of());
    }

    private static long distinct(List<Receiver.Hit> hits) {
        return hits.stream().map(Receiver.Hit::idempotencyKey).distinct().count();
    }

    private static JsonNode statusJson(AlertService s, String subscription) {
        return statusJson(s.httpPort(), subscription);
    }

    private static JsonNode statusJson(int port, String subscription) {
        return call(port, "GET", "/api/v1/events/subscriptions/" + subscription + "/status", null).json()
                .get("destinations").get(0);
    }

    private static String status(AlertService s, String subscription) {
        return status(s.httpPort(), subscription);
    }

    private static String status(int port, String subscription) {
        return statusJson(port, subscription).get("status").asText();
    }

    /** Records on changes the main group has not committed past. */
    private long lag(Setup setup) throws Exception {
        return new RetryPathFixture(broker, setup.catalog(), setup.settings()).lag();
    }

    private long retryRecords(Setup setup) {
        return io.changestream.testkit.KafkaTestClients.readAll(broker, setup.catalog().alertRetry().name(), Duration.ofSeconds(5)).size();
    }
}
