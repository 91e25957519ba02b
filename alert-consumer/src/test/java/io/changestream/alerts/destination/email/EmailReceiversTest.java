package io.changestream.alerts.destination.email;

import io.changestream.alerts.destination.Fixtures;
import io.changestream.alerts.destination.DeliveryRequest;
import io.changestream.alerts.destination.DeliveryResult;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.MessageSettings;
import io.changestream.alerts.platform.PlatformDirectory;
import io.changestream.alerts.platform.PlatformSettings;
import io.changestream.alerts.platform.PlatformUnavailableException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.testkit.TestClock;
import io.changestream.topics.model.ChangeDescription;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** E-mail receivers by role, resolved through a local stand-in of the platform's users and teams API. */
class EmailReceiversTest {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private final PlatformStandIn platform = new PlatformStandIn();
    private final TestClock clock = TestClock.frozenAt(Instant.parse("2026-01-01T00:00:00Z"));
    private final String alice = platform.user("alice", "alice@cs.test", false);
    private final String bob = platform.user("bob", "bob@cs.test", false);
    private final String dataEng = platform.team("data-eng", "data-eng@cs.test");

    @AfterEach
    void stop() {
        platform.close();
    }

    private PlatformDirectory directory(String token, int maxEntries) {
        return new PlatformDirectory(new PlatformSettings(platform.url(), token, Duration.ofSeconds(2),
                Duration.ofMinutes(5), maxEntries, 100), clock);
    }

    private EmailReceivers receivers() {
        return new EmailReceivers(directory(PlatformStandIn.TOKEN, 1000));
    }

    private static SubscriptionDestination email(String id, SubscriptionCategory category, String receivers) {
        return new SubscriptionDestination(id, category, SubscriptionType.EMAIL, 1, 2, true,
                Fixtures.json("{" + (receivers == null ? "" : "\"receivers\":" + receivers) + "}"), null, null);
    }

    private ChangeEvent event(String description) {
        String entity = """
                {"id": "6f1c2b7e-8a52-4f8e-9d0c-2b1f3a4c5d6e", "name": "orders",
                 "owners": [{"id": "%s", "type": "user", "name": "alice"},
                            {"id": "%s", "type": "team", "name": "data-eng"}],
                 "followers": [{"id": "%s", "type": "user", "name": "bob"}]}
                """.formatted(alice, dataEng, bob);
        ChangeDescription changes = new ChangeDescription(List.of(), description == null ? List.of()
                : List.of(new FieldChange("description", Fixtures.json("\"old\""),
                Fixtures.json("\"" + description + "\""))), List.of(), 0.1);
        return new ChangeEvent("9a1e7c44-5d2b-4b8f-a0c3-6e7f8a9b0c1d", "entityUpdated", "table",
                "6f1c2b7e-8a52-4f8e-9d0c-2b1f3a4c5d6e", null, "svc.db.sales.orders", 0.1, 0.2, "alice", null,
                1_700_000_000_000L, changes, Fixtures.json(entity), null, null);
    }

    private static Set<String> addresses(Set<InternetAddress> resolved) {
        return resolved.stream().map(InternetAddress::getAddress).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void ownersAreTheEntitysUsersAndTeamsAndFollowersItsFollowers() {
        assertEquals(Set.of("alice@cs.test", "data-eng@cs.test"), addresses(receivers().resolve(
                List.of(email("o", SubscriptionCategory.OWNERS, null)), event(null))));
        assertEquals(Set.of("bob@cs.test"), addresses(receivers().resolve(
                List.of(email("f", SubscriptionCategory.FOLLOWERS, null)), event(null))));
    }

    @Test
    void adminsAreEveryAdminUserAcrossPages() {
        IntStream.range(0, 60).forEach(i -> platform.user("admin" + i, "admin" + i + "@cs.test", true));
        Set<String> admins = addresses(receivers().resolve(List.of(email("a", SubscriptionCategory.ADMINS,
                "[\"oncall@cs.test\"]")), event(null)));
        assertEquals(61, admins.size(), "60 admins over two pages of 50, plus the listed address");
        assertTrue(admins.contains("admin59@cs.test"));
        assertTrue(admins.contains("oncall@cs.test"));
        assertFalse(admins.contains("alice@cs.test"), "not an admin");
    }

    @Test
    void usersAndTeamsByNameUnknownNamesSkipped() {
        assertEquals(Set.of("bob@cs.test", "data-eng@cs.test"), addresses(receivers().resolve(List.of(
                email("u", SubscriptionCategory.USERS, "[\"bob\",\"nobody\"]"),
                email("t", SubscriptionCategory.TEAMS, "[\"data-eng\"]")), event(null))));
    }

    @Test
    void mentionsComeFromTheDescriptionTheChangeSet() {
        platform.user("carol", "carol@cs.test", false);
        assertEquals(Set.of("carol@cs.test", "data-eng@cs.test"), addresses(receivers().resolve(
                List.of(email("m", SubscriptionCategory.MENTIONS, null)),
                event("ping <#E::user::carol> and <#E::team::data-eng>, not alice"))));
        assertEquals(Set.of(), addresses(receivers().resolve(List.of(email("m", SubscriptionCategory.MENTIONS, null)),
                event(null))));
    }

    @Test
    void lookupsAreCachedForTheTtlAndTheCacheIsBounded() {
        EmailReceivers cached = receivers();
        List<SubscriptionDestination> owners = List.of(email("o", SubscriptionCategory.OWNERS, null));
        cached.resolve(owners, event(null));
        int calls = platform.calls();
        cached.resolve(owners, event(null));
        assertEquals(calls, platform.calls(), "served from the cache");
        clock.advance(Duration.ofMinutes(6));
        cached.resolve(owners, event(null));
        assertEquals(calls + 2, platform.calls(), "looked up again after the TTL");

        PlatformDirectory tiny = directory(PlatformStandIn.TOKEN, 2);
        IntStream.range(0, 20).forEach(i -> tiny.userByName("user" + i));
        assertTrue(tiny.cached() <= 2, "bounded: " + tiny.cached());
    }

    @Test
    void anUnavailablePlatformIsARetryAndNobodyIsMailedUntilItAnswers() throws Exception {
        EmailDestination destination = new EmailDestination(smtp(), MessageSettings.DEFAULTS, receivers());
        SubscriptionDestination owners = email("o", SubscriptionCategory.OWNERS, null);
        SubscriptionDestination external = email("x", SubscriptionCategory.EXTERNAL, "[\"audit@cs.test\"]");
        EventSubscription sub = EventSubscription.builder(Fixtures.SUBSCRIPTION_ID, "owners-mail")
                .destinations(List.of(owners, external)).build();
        DeliveryRequest request = DeliveryRequest.of(sub, owners, event(null), 1);

        platform.unavailable(true);
        DeliveryResult down = destination.deliver(request);
        assertEquals(Kind.RETRY, down.outcome());
        assertTrue(down.reason().contains("receivers unknown") && down.reason().contains("503"), down.reason());
        assertEquals(0, SMTP.getReceivedMessages().length, "not sent to fewer people");

        platform.unavailable(false);
        assertEquals(Kind.DELIVERED, destination.deliver(request).outcome());
        MimeMessage[] got = SMTP.getReceivedMessages();
        assertEquals(3, got.length, "one message, three recipients");
        assertEquals(Set.of("alice@cs.test", "data-eng@cs.test", "audit@cs.test"),
                Arrays.stream(got[0].getRecipients(Message.RecipientType.TO)).map(a -> ((InternetAddress) a)
                        .getAddress()).collect(Collectors.toSet()));
    }

    @Test
    void anUnreachablePlatformOrARefusedTokenIsARetryThatNeverShowsTheToken() {
        PlatformDirectory closed = new PlatformDirectory(PlatformSettings.DEFAULTS.withUrl(URI.create(
                "http://127.0.0.1:9")), clock);
        assertThrows(PlatformUnavailableException.class, () -> closed.userById(alice));

        EmailDestination wrongToken = new EmailDestination(smtp(), MessageSettings.DEFAULTS,
                new EmailReceivers(directory("wrong-token-value", 10)));
        SubscriptionDestination owners = email("o", SubscriptionCategory.OWNERS, null);
        DeliveryResult refused = wrongToken.deliver(DeliveryRequest.of(Fixtures.subscription(owners), owners,
                event(null), 1));
        assertEquals(Kind.RETRY, refused.outcome());
        assertTrue(refused.reason().contains("401") && refused.reason().contains("bearerToken"), refused.reason());
        assertFalse(refused.reason().contains("wrong-token-value"));
        assertFalse(directory("s3cr3t-token", 10).toString().contains("s3cr3t"));
    }

    @Test
    void anEntityWithoutOwnersIsSettledWithoutAMessage() {
        EmailDestination destination = new EmailDestination(smtp(), MessageSettings.DEFAULTS, receivers());
        SubscriptionDestination owners = email("o", SubscriptionCategory.OWNERS, null);
        assertEquals(Kind.DELIVERED, destination.deliver(DeliveryRequest.of(Fixtures.subscription(owners), owners,
                Fixtures.event(), 1)).outcome());
        assertEquals(0, SMTP.getReceivedMessages().length);
    }

    @Test
    void roleCategoriesNeedNoReceiversAtSaveButUsersTeamsAndExternalDo() {
        EmailReceivers.validate(email("o", SubscriptionCategory.OWNERS, null));
        EmailReceivers.validate(email("a", SubscriptionCategory.ADMINS, "[\"oncall@cs.test\"]"));
        for (SubscriptionCategory needs : List.of(SubscriptionCategory.USERS, SubscriptionCategory.TEAMS,
                SubscriptionCategory.EXTERNAL)) {
            assertEquals("config.receivers", assertThrows(DestinationConfigException.class,
                    () -> EmailReceivers.validate(email("d", needs, null))).field(), needs.name());
        }
        assertEquals("config.receivers[0]", assertThrows(DestinationConfigException.class,
                () -> EmailReceivers.validate(email("o", SubscriptionCategory.OWNERS, "[\"not an address\"]")))
                .field());
    }

    private static SmtpSettings smtp() {
        return new SmtpSettings("127.0.0.1", SMTP.getSmtp().getPort(), null, null, false, "alerts@cs.test",
                Duration.ofSeconds(2), Duration.ofSeconds(2));
    }
}
