package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.call;
import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static io.changestream.alerts.service.AlertTestSupport.webhook;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.service.AlertTestSupport.Answer;
import io.changestream.alerts.subscription.SubscriptionRoutes;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, the admin API under hostile input, against one real service with the SSRF guard on (private addresses
 * refused): every route answers a client's mistake with a 4xx in the platform's shape naming the field, never 500.
 */
class AdminApiHardeningIT {

    private static final KafkaBroker BROKER = Brokers.shared();
    private static final String BASE = SubscriptionRoutes.BASE;
    private static AlertService service;
    private static TopicCatalog catalog;

    @BeforeAll
    static void start() {
        String namespace = AlertTestSupport.namespace("hardening");
        catalog = AlertTestSupport.catalog(namespace, 2);
        AlertTestSupport.provision(BROKER, catalog);
        Map<String, String> settings = AlertTestSupport.settings(BROKER, namespace, "hardening-" + UUID.randomUUID());
        settings.put("destinations.allowPrivateAddresses", "false");
        service = AlertService.start(AlertTestSupport.config(settings));
    }

    @AfterAll
    static void stop() {
        service.close();
    }

    private static int port() {
        return service.httpPort();
    }

    private static void assertClientError(Answer answer, int status, String fieldPrefix, String what) {
        assertEquals(status, answer.status(), what + ": " + answer.body());
        JsonNode body = answer.json();
        assertEquals(status, body.path("code").asInt(), what + ": " + answer.body());
        assertTrue(body.path("message").asText().startsWith(fieldPrefix), what + ": " + answer.body());
    }

    @Test
    void anElevenMegabyteBodyIs413NamingTheLimitOnEveryRouteThatTakesABody() {
        String huge = "{\"name\":\"" + "x".repeat(11 * 1024 * 1024) + "\"}";
        String id = create(port(), request("big-target", "[\"all\"]", "[]", "[]", 1));
        for (String[] route : List.of(new String[] {"POST", BASE}, new String[] {"PUT", BASE},
                new String[] {"PUT", BASE + "/" + id})) {
            Answer answer = sendWhileTheServerMayRefuse(port(), route[0], route[1], huge);
            assertClientError(answer, 413, "body: larger than 262144 bytes (admin.maxRequestBytes)",
                    route[0] + " " + route[1]);
        }
        assertEquals(200, call(port(), "GET", BASE + "/" + id, null).status(), "still serving");
    }

    /**
     * Sends a large body the way any client does — writing it while reading the answer — over a plain socket: a
     * server that refuses it (413) answers before the body is read and then closes, which the JDK client reports as
     * "no bytes" when its write fails first; here the write runs apart and the answer is read whatever it does.
     */
    private static Answer sendWhileTheServerMayRefuse(int port, String method, String path, String body) {
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(20_000);
            String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer "
                    + AlertTestSupport.TOKEN + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
                    + "\r\nConnection: close\r\n\r\n";
            java.io.OutputStream out = socket.getOutputStream();
            Thread writer = new Thread(() -> {
                try {
                    out.write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    out.write(bytes);
                    out.flush();
                } catch (java.io.IOException refusedMidBody) {
                    // the server answered and closed: the answer is what the test reads
                }
            });
            writer.start();
            String response = new String(socket.getInputStream().readAllBytes(),
                    java.nio.charset.StandardCharsets.UTF_8);
            writer.join(20_000);
            int status = Integer.parseInt(response.substring(9, 12));
            int start = response.indexOf("\r\n\r\n") + 4;
            String rest = response.substring(start);
            if (response.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
                StringBuilder text = new StringBuilder();
                int at = 0;
                while (true) {
                    int eol = rest.indexOf("\r\n", at);
                    int size = Integer.parseInt(rest.substring(at, eol).trim(), 16);
                    if (size == 0) {
                        break;
                    }
                    text.append(rest, eol + 2, eol + 2 + size);
                    at = eol + 2 + size + 2;
                }
                rest = text.toString();
            }
            return new Answer(status, rest);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void everyRouteAnswersBadInputWith4xxNamingTheField() {
        String id = create(port(), request("walk-target", "[\"all\"]", "[]", "[]", 1));
        String unknown = UUID.randomUUID().toString();
        Object[][] walk = {
                {"POST", BASE, "{not json", 400, "body"},
                {"POST", BASE, "[1,2]", 400, "body"},
                {"POST", BASE, "", 400, "body"},
                {"POST", BASE, "null", 400, "body"},
                {"POST", BASE, "{\"resources\":[\"all\"]}", 400, "name"},
                {"POST", BASE, "{\"name\":7,\"resources\":[\"all\"]}", 400, "name"},
                {"POST", BASE, "{\"name\":\"w1\"}", 400, "resources"},
                {"POST", BASE, "{\"name\":\"w1\",\"resources\":[\"all\"],\"batchSize\":\"x\"}", 400, "batchSize"},
                {"POST", BASE, "{\"name\":\"w1\",\"resources\":[\"all\"],\"retries\":1e400}", 400, "retries"},
                {"POST", BASE, "{\"name\":\"w1\",\"resources\":[\"all\"],\"alertType\":{\"a\":1}}", 400, "alertType"},
                {"POST", BASE, "{\"name\":\"w1\",\"resources\":[\"all\"],\"trigger\":\"now\"}", 400, "trigger"},
                {"POST", BASE, "{\"name\":\"w1\",\"resources\":[\"all\"],\"destinations\":{}}", 400, "destinations"},
                {"POST", BASE, "{\"name\":\"w1\",\"resources\":[\"all\"],\"destinations\":[{\"type\":\"Webhook\"}]}",
                        400, "destinations[0].category"},
                {"POST", BASE, request("w1", "[\"all\"]", "[{\"name\":\"filterByFqn\",\"effect\":\"include\","
                        + "\"arguments\":[{\"name\":\"fqnList\",\"input\":[\"a(\"]}]}]", "[]", 1), 400, "input"},
                {"POST", BASE, request("walk-target", "[\"all\"]", "[]", "[]", 1), 409, "eventSubscription with name"},
                {"PUT", BASE, "{\"name\":\"walk-target\",\"resources\":[]}", 400, "resources"},
                {"PUT", BASE + "/" + id, "{\"name\":\"\"}", 400, "name"},
                {"PUT", BASE + "/" + unknown, request("w2", "[\"all\"]", "[]", "[]", 1), 404, "eventSubscription"},
                {"GET", BASE + "/" + unknown, null, 404, "eventSubscription"},
                {"GET", BASE + "/name/no-such-name", null, 404, "eventSubscription"},
                {"GET", BASE + "/" + unknown + "/status", null, 404, "eventSubscription"},
                {"GET", BASE + "/" + unknown + "/summary", null, 404, "subscription"},
                {"DELETE", BASE + "/" + unknown, null, 404, "eventSubscription"},
                {"DELETE", BASE + "/name/no-such-name", null, 404, "eventSubscription"},
        };
        for (Object[] step : walk) {
            assertClientError(call(port(), (String) step[0], (String) step[1], (String) step[2]), (int) step[3],
                    (String) step[4], step[0] + " " + step[1] + " " + step[2]);
        }
        for (String path : List.of(BASE, BASE + "/" + id, BASE + "/name/walk-target", BASE + "/" + id + "/status",
                BASE + "/" + id + "/summary", AlertHttpServer.RUNTIME_STATUS)) {
            assertClientError(call(port(), "GET", path, null, null), 401, "a valid bearer token", "GET " + path);
            assertClientError(call(port(), "GET", path, null, "Bearer-but-wrong-0123456789"), 401,
                    "a valid bearer token", "GET " + path);
        }
        assertTrue(call(port(), "GET", "/api/v1/no/such/route", null).status() == 404);
        assertEquals(200, call(port(), "GET", "/health/live", null, null).status());
    }

    @Test
    void ssrfTargetsAreRefusedAtSaveEndToEnd() {
        for (String url : List.of("http://[64:ff9b::a9fe:a9fe]/latest/meta-data", "http://[::127.0.0.1]:8080/",
                "http://[2002:c0a8:101::1]/hook", "http://198.18.0.1/", "http://192.0.0.8/", "http://127.0.0.1/")) {
            Answer answer = call(port(), "POST", BASE, request("ssrf-" + UUID.randomUUID(), "[\"all\"]", "[]",
                    "[" + webhook("Webhook", url, null) + "]", 1));
            assertClientError(answer, 400, "destinations[0].config.endpoint", url);
            assertTrue(answer.json().path("message").asText().contains("refused"), answer.body());
        }
    }

    @Test
    void anOpenLineageKafkaDestinationCannotNameACatalogTopic() {
        for (String topic : List.of(catalog.changes().name(), catalog.alertLedger().name(),
                catalog.subscriptions().name(), "anything-else")) {
            String destination = "{\"category\":\"External\",\"type\":\"OpenLineage\","
                    + "\"config\":{\"transport\":\"kafka\",\"topic\":\"" + topic + "\"}}";
            Answer answer = call(port(), "POST", BASE, request("lineage-" + UUID.randomUUID(), "[\"all\"]", "[]",
                    "[" + destination + "]", 1));
            assertClientError(answer, 400, "destinations[0].config.topic", topic);
        }
        String allowed = "{\"category\":\"External\",\"type\":\"OpenLineage\","
                + "\"config\":{\"transport\":\"kafka\",\"topic\":\"" + catalog.namespace() + "openlineage\"}}";
        assertEquals(201, call(port(), "POST", BASE, request("lineage-ok", "[\"all\"]", "[]", "[" + allowed + "]", 1))
                .status());
    }

    @Test
    void getNeverReturnsADestinationUrlOrHeaderValueInClearAndPuttingItBackKeepsTheSecrets() {
        String[] secrets = {"T0SLACK/B0SLACK/slackTokenXyz", "teamsTokenAbc", "gchatKeyQrs", "hookCode123",
                "apiKeyValue456", "lineageKey789", "hmacSecret000"};
        String destinations = "["
                + "{\"category\":\"External\",\"type\":\"Slack\",\"config\":{\"endpoint\":"
                + "\"https://hooks.slack.com/services/" + secrets[0] + "\"}},"
                + "{\"category\":\"External\",\"type\":\"MsTeams\",\"config\":{\"endpoint\":"
                + "\"https://acme.webhook.office.com/webhookb2/" + secrets[1] + "\"}},"
                + "{\"category\":\"External\",\"type\":\"GChat\",\"config\":{\"endpoint\":"
                + "\"https://chat.googleapis.com/v1/spaces/AAA/messages?key=" + secrets[2] + "\"}},"
                + "{\"category\":\"External\",\"type\":\"Webhook\",\"config\":{\"endpoint\":"
                + "\"https://hooks.example.com/in?code=" + secrets[3] + "\",\"secretKey\":\"" + secrets[6] + "\","
                + "\"headers\":{\"X-Api-Key\":\"" + secrets[4] + "\"}}},"
                + "{\"category\":\"External\",\"type\":\"OpenLineage\",\"config\":{\"endpoint\":"
                + "\"https://lineage.example.com/api/v1/lineage\",\"apiKey\":\"" + secrets[5] + "\"}}]";
        String id = create(port(), request("masked-all", "[\"all\"]", "[]", destinations, 1));
        List<Answer> answers = List.of(call(port(), "GET", BASE + "/" + id, null),
                call(port(), "GET", BASE + "/name/masked-all", null), call(port(), "GET", BASE, null),
                call(port(), "GET", BASE + "/" + id + "/status", null));
        for (Answer answer : answers) {
            assertEquals(200, answer.status(), answer.body());
            for (String secret : secrets) {
                assertTrue(!answer.body().contains(secret), secret + " served in " + answer.body());
            }
        }
        JsonNode got = answers.get(0).json();
        assertEquals("https://hooks.slack.com/********",
                got.path("destinations").get(0).path("config").path("endpoint").asText());

        Answer put = call(port(), "PUT", BASE + "/" + id, got.toString());
        assertEquals(200, put.status(), put.body());
        String stored = service.store().get(id).orElseThrow().subscription().destinations().toString();
        for (String secret : secrets) {
            assertTrue(stored.contains(secret), "PUT of the masked view lost " + secret + ": " + stored);
        }
    }
}
