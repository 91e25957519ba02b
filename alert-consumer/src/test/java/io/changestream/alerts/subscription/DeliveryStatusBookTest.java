package io.changestream.alerts.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 21: the reasons this instance's {@code /status} book shows carry no URL path or query. */
class DeliveryStatusBookTest {

    @Test
    void aFailureReasonLosesTheWebhookPath() {
        DeliveryStatusBook book = new DeliveryStatusBook(Clock.systemUTC(), 10);
        JsonNode config = Requests.json("{\"endpoint\":\"https://hooks.slack.com/services/T/B/XSECRET\"}");
        EventSubscription s = EventSubscription.builder("s1", "one").destinations(List.of(
                new SubscriptionDestination("d1", SubscriptionCategory.EXTERNAL, SubscriptionType.SLACK, config)))
                .build();
        book.failed("s1", "d1", "connect failed: https://hooks.slack.com/services/T/B/XSECRET?x=1", null);
        assertEquals("connect failed: https://hooks.slack.com/********", book.statuses(s).get(0).lastFailedReason());
        book.deadLettered("s1", "d1", "I/O error: HttpRequest[POST /services/T/B/XSECRET HTTP/1.1]", false);
        assertEquals("I/O error: HttpRequest[POST /******** HTTP/1.1]", book.statuses(s).get(0).lastFailedReason());
    }
}
