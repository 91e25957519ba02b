package io.changestream.alerts.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Issue 21: a hand-off's reason (it goes to {@code alert-retry}, suspensions and logs) carries no URL path or query. */
class LongRetriesTest {

    @Test
    void aHandOffsReasonLosesTheUrlPathAndQuery() {
        SubscriptionDestination d = new SubscriptionDestination("d1", SubscriptionCategory.EXTERNAL,
                SubscriptionType.MS_TEAMS, null);
        EventSubscription s = EventSubscription.builder("s1", "one").destinations(List.of(d)).build();
        ChangeEvent e = new ChangeEvent("e1", ChangeEvent.ENTITY_UPDATED, "table", UUID.randomUUID().toString(), null,
                "svc.db.t", 0.1, 0.2, "alice", null, 1_000, null, null, null);
        LongRetries.Handoff h = new LongRetries.Handoff(new DeliveryRequest(s, d, e, null, 1, null),
                new TopicPartition("changes", 0), 7, "{}", "entity-1", "e1", "g", 1, 1_000, Duration.ofMinutes(5),
                "HTTP 503 from https://acme.webhook.office.com/webhookb2/SECRET/IncomingWebhook/KEY?sig=s", false);
        assertEquals("HTTP 503 from https://acme.webhook.office.com/********", h.reason());
    }
}
