package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.create;
import static io.changestream.alerts.service.AlertTestSupport.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.serde.Json;
import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * E-mail receivers by role on the real path (broker → alert service → GreenMail), resolved through a local stand-in
 * of the platform's users/teams API: Owners and Followers from the event's entity, Admins from the admin list; while
 * the platform cannot answer nothing is mailed, and once it answers the message goes once to everyone.
 */
class ReceiversByRoleIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void ownersFollowersAndAdminsAreResolvedThroughThePlatformAndRetriedWhileItIsDown() throws Exception {
        String ns = AlertTestSupport.namespace("roles");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 3);
        AlertTestSupport.provision(broker, catalog);
        try (PlatformStandIn platform = new PlatformStandIn()) {
            String alice = platform.user("alice", "alice@cs.test", false);
            String bob = platform.user("bob", "bob@cs.test", false);
            String team = platform.team("data-eng", "data-eng@cs.test");
            platform.user("root", "root@cs.test", true);
            Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
            AlertTestSupport.smtp(settings, SMTP.getSmtp().getPort());
            settings.put("destinations.platformUrl", platform.url().toString());
            settings.put("destinations.platform.bearerToken", PlatformStandIn.TOKEN);
            try (AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
                create(service.httpPort(), request("by-role", "[\"table\"]", "[]", """
                        [{"category": "Owners", "type": "Email", "config": {}},
                         {"category": "Followers", "type": "Email", "config": {}},
                         {"category": "Admins", "type": "Email", "config": {}}]""", 50));
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> service.runtime().status().partitions()
                        .stream().anyMatch(p -> p.topic().equals(catalog.changes().name())));

                platform.unavailable(true);
                int callsBefore = platform.calls();
                ChangeEvent base = AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table",
                        "6f1c2b7e-8a52-4f8e-9d0c-2b1f3a4c5d6e", "svc.db.sales.orders");
                ChangeEvent event = new ChangeEvent(base.id(), base.eventType(), base.entityType(), base.entityId(),
                        null, base.entityFullyQualifiedName(), 0.1, 0.2, "alice", null, base.timestamp(), null,
                        Json.mapper().readTree("""
                                {"id": "6f1c2b7e-8a52-4f8e-9d0c-2b1f3a4c5d6e", "name": "orders",
                                 "owners": [{"id": "%s", "type": "user"}, {"id": "%s", "type": "team"}],
                                 "followers": [{"id": "%s", "type": "user"}]}""".formatted(alice, team, bob)),
                        null, null);
                AlertTestSupport.produce(broker, catalog.changes().name(), List.of(event));

                // the platform is asked (and retried) while it is down; nobody is mailed meanwhile
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> platform.calls() >= callsBefore + 3);
                assertEquals(0, SMTP.getReceivedMessages().length);

                platform.unavailable(false);
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> SMTP.getReceivedMessages().length >= 4);
                Awaitility.await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);

                MimeMessage[] got = SMTP.getReceivedMessages();
                assertEquals(4, got.length, "one message, delivered to four mailboxes");
                Set<String> to = Arrays.stream(got[0].getRecipients(Message.RecipientType.TO))
                        .map(a -> ((InternetAddress) a).getAddress()).collect(Collectors.toCollection(TreeSet::new));
                assertEquals(Set.of("alice@cs.test", "bob@cs.test", "data-eng@cs.test", "root@cs.test"), to);
                assertEquals(1, Arrays.stream(got).map(m -> {
                    try {
                        return m.getMessageID();
                    } catch (jakarta.mail.MessagingException e) {
                        throw new IllegalStateException(e);
                    }
                }).distinct().count(), "sent once");
            }
        }
    }
}
