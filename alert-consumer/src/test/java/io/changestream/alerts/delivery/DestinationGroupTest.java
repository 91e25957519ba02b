package io.changestream.alerts.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DestinationGroupTest {

    private static JsonNode json(String text) throws Exception {
        return Json.mapper().readTree(text);
    }

    private static SubscriptionDestination d(String id, SubscriptionType type, String config) throws Exception {
        return new SubscriptionDestination(id, SubscriptionCategory.EXTERNAL, type, json(config));
    }

    @Test
    void emailsBecomeOneSendToTheUnionAndEqualEndpointsOneRequest() throws Exception {
        EventSubscription s = EventSubscription.builder("s1", "sub").destinations(List.of(
                d("m1", SubscriptionType.EMAIL, "{\"receivers\": [\"a@x.io\", \"b@x.io\"]}"),
                d("w1", SubscriptionType.WEBHOOK, "{\"endpoint\": \"https://hooks.example.com/1\"}"),
                d("m2", SubscriptionType.EMAIL, "{\"receivers\": [\"b@x.io\", \"c@x.io\"]}"),
                d("w2", SubscriptionType.WEBHOOK, "{\"endpoint\": \"https://hooks.example.com/1\"}"),
                d("w3", SubscriptionType.WEBHOOK, "{\"endpoint\": \"https://hooks.example.com/2\"}"),
                d("l1", SubscriptionType.OPEN_LINEAGE, "{\"endpoint\": \"https://lineage.example.com\"}"),
                d("f1", SubscriptionType.ACTIVITY_FEED, "{}"))).build();
        List<DestinationGroup> groups = DestinationGroup.of(s, false);
        assertEquals(3, groups.size());
        DestinationGroup mail = groups.get(0);
        assertEquals(List.of("m1", "m2"), mail.memberIds());
        List<String> receivers = new ArrayList<>();
        mail.destination().config().get("receivers").forEach(r -> receivers.add(r.asText()));
        assertEquals(List.of("a@x.io", "b@x.io", "c@x.io"), receivers);
        assertEquals(List.of("w1", "w2"), groups.get(1).memberIds());
        assertEquals(List.of("w3"), groups.get(2).memberIds());

        List<DestinationGroup> runStatus = DestinationGroup.of(s, true);
        assertEquals(1, runStatus.size(), "run statuses go to OpenLineage only");
        assertEquals(List.of("l1"), runStatus.get(0).memberIds());
    }

    @Test
    void downstreamOwnersDestinationsTakeRunStatusesAndNoChangeEvents() throws Exception {
        SubscriptionDestination impact = new SubscriptionDestination("i1",
                io.changestream.topics.model.SubscriptionCategory.DOWNSTREAM_OWNERS, SubscriptionType.SLACK,
                json("{\"endpoint\": \"https://hooks.slack.example.com/x\"}"));
        EventSubscription s = EventSubscription.builder("s", "n").destinations(List.of(
                d("w1", SubscriptionType.WEBHOOK, "{\"endpoint\": \"https://hooks.example.com/1\"}"), impact,
                d("l1", SubscriptionType.OPEN_LINEAGE, "{\"endpoint\": \"https://lineage.example.com\"}")))
                .build();
        assertEquals(List.of(List.of("w1")), DestinationGroup.of(s, false).stream()
                .map(DestinationGroup::memberIds).toList());
        assertEquals(List.of(List.of("i1"), List.of("l1")), DestinationGroup.of(s, true).stream()
                .map(DestinationGroup::memberIds).toList());
    }

    @Test
    void disabledSubscriptionsAndDestinationsHaveNoGroups() throws Exception {
        SubscriptionDestination off = new SubscriptionDestination("w1", SubscriptionCategory.EXTERNAL,
                SubscriptionType.WEBHOOK, null, null, false, json("{\"endpoint\": \"https://h.example.com\"}"), null,
                null);
        assertEquals(0, DestinationGroup.of(EventSubscription.builder("s", "n").destinations(List.of(off)).build(),
                false).size());
        EventSubscription disabled = EventSubscription.builder("s", "n").enabled(false).destinations(List.of(
                d("w2", SubscriptionType.WEBHOOK, "{\"endpoint\": \"https://h.example.com\"}"))).build();
        assertEquals(0, DestinationGroup.of(disabled, false).size());
    }
}
