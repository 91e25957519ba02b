package io.changestream.alerts.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.DestinationSettings;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.javalin.Javalin;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: each quota of the admin API is a setting, and a request beyond it is a 400 naming the field and the
 * setting — subscriptions per service, destinations per subscription, filter program per subscription, list page.
 */
class SubscriptionQuotasIT {

    private static final KafkaBroker BROKER = Brokers.shared();
    private static final String TOKEN = "test-token-0123456789";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final SubscriptionQuotas QUOTAS = new SubscriptionQuotas(3, 2, 300, 2);

    @Test
    void everyQuotaIsA400NamingTheFieldAndTheSetting() throws Exception {
        String topic = "it-quotas-subscriptions-" + UUID.randomUUID();
        BROKER.createTopic(topic, 1, Map.of("cleanup.policy", "compact"));
        try (SubscriptionStore store = SubscriptionStore.start(SubscriptionStoreSettings.of(topic,
                BROKER.bootstrapServers()), FilterSettings.DEFAULTS)) {
            DestinationRegistry registry = new DestinationRegistry(DestinationSettings.DEFAULTS, Clock.systemUTC(),
                    new SimpleMeterRegistry(), null);
            SubscriptionRoutes routes = new SubscriptionRoutes(new SubscriptionService(new SubscriptionFactory(
                    registry, FilterSettings.DEFAULTS, QUOTAS, Clock.systemUTC()), store, QUOTAS),
                    new AdminApiSettings(TOKEN, "admin", AdminApiSettings.MAX_REQUEST_BYTES.defaultOrFail(), QUOTAS),
                    null);
            Javalin app = Javalin.create(routes::install).start("127.0.0.1", 0);
            try {
                quotas(app.port(), store);
            } finally {
                app.stop();
            }
        }
    }

    private void quotas(int port, SubscriptionStore store) throws Exception {
        ObjectNode three = (ObjectNode) Requests.json(Requests.create("q-many", "https://hooks.example.com/q"));
        ArrayNode destinations = (ArrayNode) three.get("destinations");
        destinations.add(destinations.get(0).deepCopy());
        destinations.add(destinations.get(0).deepCopy());
        assertRefused(call(port, "POST", "", three.toString()), "destinations: ",
                "quota.destinationsPerSubscription");

        StringBuilder patterns = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            patterns.append(i == 0 ? "" : ",").append("'.*stage").append(i).append("[a-z]+.*'");
        }
        ObjectNode costly = (ObjectNode) Requests.json("""
                {"name":"q-costly","resources":["all"],"filteringRules":{"rules":[
                  {"name":"c","effect":"include","condition":"matchAnyEntityFqn({%s})"}]}}
                """.formatted(patterns));
        assertRefused(call(port, "POST", "", costly.toString()), "filteringRules: ", "quota.filterProgram");
        assertFalse(store.byName("q-costly").isPresent() || store.byName("q-many").isPresent());

        for (String name : new String[] {"q-a", "q-b", "q-c"}) {
            HttpResponse<String> created = call(port, "POST", "", Requests.create(name, "https://hooks.example.com/"
                    + name));
            assertEquals(201, created.statusCode(), created.body());
        }
        assertRefused(call(port, "POST", "", Requests.create("q-d", "https://hooks.example.com/d")), "body: ",
                "quota.subscriptions");
        assertEquals(200, call(port, "PUT", "", Requests.create("q-a", "https://hooks.example.com/a2"))
                .statusCode(), "an update is not a new subscription");

        JsonNode first = Requests.json(call(port, "GET", "", null).body());
        assertEquals(2, first.get("data").size(), "a page is at most quota.listLimit");
        assertEquals(3, first.get("paging").get("total").asInt());
        assertEquals("q-a", first.get("data").get(0).get("name").asText());
        String after = first.get("paging").get("after").asText();
        JsonNode second = Requests.json(call(port, "GET", "?after=" + after, null).body());
        assertEquals(1, second.get("data").size());
        assertEquals("q-c", second.get("data").get(0).get("name").asText());
        assertFalse(second.get("paging").has("after"), "the last page has no cursor");
        assertEquals(1, Requests.json(call(port, "GET", "?limit=1", null).body()).get("data").size());
        assertRefused(call(port, "GET", "?limit=3", null), "limit: ", "quota.listLimit");
        assertRefused(call(port, "GET", "?limit=0", null), "limit: ", "quota.listLimit");
        assertRefused(call(port, "GET", "?limit=many", null), "limit: ", "integer");
        assertRefused(call(port, "GET", "?after=%25%25", null), "after: ", "paging.after");
    }

    private static void assertRefused(HttpResponse<String> response, String field, String mention) {
        assertEquals(400, response.statusCode(), response.body());
        String message = Requests.json(response.body()).get("message").asText();
        assertTrue(message.startsWith(field) && message.contains(mention), message);
    }

    private static HttpResponse<String> call(int port, String method, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + SubscriptionRoutes.BASE
                        + path)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
