package io.changestream.alerts.destination;

import io.changestream.alerts.platform.PlatformDirectory;
import io.changestream.alerts.destination.chat.ChatDestination;
import io.changestream.alerts.destination.chat.ChatFormat;
import io.changestream.alerts.destination.email.EmailDestination;
import io.changestream.alerts.destination.email.EmailReceivers;
import io.changestream.alerts.destination.email.SmtpSettings;
import io.changestream.alerts.destination.http.HttpSender;
import io.changestream.alerts.destination.http.HttpSettings;
import io.changestream.alerts.destination.webhook.WebhookDestination;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.alerts.destination.DeliveryResult.Kind;
import io.changestream.alerts.impact.ImpactFixture;
import io.changestream.alerts.impact.ImpactResolver;
import io.changestream.alerts.impact.ImpactSettings;
import io.changestream.testkit.ImpactEstate;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import jakarta.mail.Address;
import jakarta.mail.internet.MimeMessage;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Impact alerts (issue 28): a failed run to destinations of category DownstreamOwners — e-mail to the owners of the
 * impacted assets (GreenMail), Slack, Teams, Google Chat and webhook bodies listing the impacted assets, top N and
 * the rest counted — against the stand-in of the platform's lineage, entity and user APIs.
 */
class ImpactAlertsTest {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP)
            .withConfiguration(GreenMailConfiguration.aConfig().withUser("alerts@cs.test", "alerts", "right"));

    private static final MessageSettings MESSAGES = new MessageSettings(URI.create("https://om.example.com/"), 20, 200);
    private static final ImpactSettings TOP_TWO = new ImpactSettings(ImpactSettings.DEFAULTS.states(),
            Duration.ofSeconds(2), 3, 20, 200, Duration.ofMinutes(1), 100, 2, Set.of(), Duration.ofMillis(500));

    private final PlatformStandIn platform = new PlatformStandIn();
    private final LocalReceiver receiver = new LocalReceiver();
    private final HttpSender sender = new HttpSender(HttpSettings.DEFAULTS.allowingPrivateAddresses(),
            Clock.systemUTC());

    @BeforeEach
    void estate() {
        ImpactEstate.fill(platform);
    }

    @AfterEach
    void stop() {
        receiver.close();
        platform.close();
    }

    private ImpactResolver resolver(ImpactSettings settings) {
        return new ImpactResolver(settings, ImpactFixture.platform(platform), Clock.systemUTC());
    }

    private static PipelineRunStatus failed() {
        return new PipelineRunStatus(ImpactEstate.PIPELINE, "run-3", PipelineState.FAILED, 1_700_000_000_000L,
                1_700_000_060_000L, 1_700_000_060_000L);
    }

    private static DeliveryRequest request(SubscriptionDestination d) {
        EventSubscription sub = EventSubscription.builder(Fixtures.SUBSCRIPTION_ID, "critical-failures")
                .destinations(List.of(d)).build();
        return DeliveryRequest.ofRun(sub, d, failed(), 1);
    }

    private SubscriptionDestination chat(SubscriptionType type, String extra) {
        return new SubscriptionDestination("c", SubscriptionCategory.DOWNSTREAM_OWNERS, type,
                Fixtures.json("{\"endpoint\":\"" + receiver.uri("/hook") + "\"" + extra + "}"));
    }

    private JsonNode lastBody() {
        LocalReceiver.Received got = receiver.received().get(receiver.received().size() - 1);
        return Fixtures.json(new String(got.body(), StandardCharsets.UTF_8));
    }

    private DeliveryResult mailToDownstreamOwnersAndOncall() {
        SmtpSettings smtp = new SmtpSettings("127.0.0.1", SMTP.getSmtp().getPort(), "alerts", "right", false,
                "alerts@cs.test", Duration.ofSeconds(2), Duration.ofSeconds(2));
        EmailDestination email = new EmailDestination(smtp, MESSAGES,
                new EmailReceivers(new PlatformDirectory(ImpactFixture.platform(platform), Clock.systemUTC())),
                resolver(TOP_TWO));
        SubscriptionDestination d = new SubscriptionDestination("m", SubscriptionCategory.DOWNSTREAM_OWNERS,
                SubscriptionType.EMAIL, Fixtures.json("{\"receivers\":[\"oncall@cs.test\"]}"));
        return email.deliver(request(d));
    }

    @Test
    void theOwnersOfEveryImpactedAssetAndTheListedReceiversGetOneMail() throws Exception {
        DeliveryResult result = mailToDownstreamOwnersAndOncall();
        assertEquals(Kind.DELIVERED, result.outcome(), result.reason());
        MimeMessage[] got = SMTP.getReceivedMessages();
        Set<String> to = new TreeSet<>();
        for (MimeMessage m : got) {
            to.addAll(Arrays.stream(m.getAllRecipients()).map(Address::toString).collect(Collectors.toSet()));
        }
        assertEquals(Set.of("ana@cs.test", "bob@cs.test", "data-eng@cs.test", "oncall@cs.test"), to);
        assertEquals("[critical-failures] ingestion pipeline run failed: mysql_prod.ingest_orders — 5 impacted "
                + "assets", got[0].getSubject());
        String raw = GreenMailUtil.getWholeMessage(got[0]);
        assertTrue(raw.contains("table mysql_prod.shop.public.customers (output, Tier.Tier2, owners: bob)"), raw);
        assertTrue(raw.contains("… and 3 more impacted assets") || raw.contains("and 3 more impacted assets"), raw);
    }

    @Test
    void whenTheImpactIsUnknownTheListedReceiversGetTheAlertOnTimeAndItSaysSo() throws Exception {
        platform.unavailable(true);
        DeliveryResult result = mailToDownstreamOwnersAndOncall();
        assertEquals(Kind.DELIVERED, result.outcome(), result.reason());
        MimeMessage[] got = SMTP.getReceivedMessages();
        assertEquals(1, got.length);
        assertEquals("oncall@cs.test", got[0].getAllRecipients()[0].toString());
        assertTrue(got[0].getSubject().endsWith("— impact unknown"), got[0].getSubject());
        assertTrue(GreenMailUtil.getWholeMessage(got[0]).contains("Downstream impact unknown: platform API answered "
                + "503"));
    }

    @Test
    void aDownstreamOwnersMailNeedsListedReceiversForWhenTheImpactIsUnknown() {
        SubscriptionDestination d = new SubscriptionDestination("m", SubscriptionCategory.DOWNSTREAM_OWNERS,
                SubscriptionType.EMAIL, Fixtures.json("{}"));
        DestinationConfigException e = org.junit.jupiter.api.Assertions.assertThrows(
                DestinationConfigException.class, () -> EmailReceivers.validate(d));
        assertTrue(e.getMessage().contains("config.receivers"), e.getMessage());
    }

    @Test
    void slackListsTheTopImpactedAssetsAndCountsTheRest() {
        DeliveryResult result = new ChatDestination(ChatFormat.SLACK, sender, MESSAGES, resolver(TOP_TWO))
                .deliver(request(chat(SubscriptionType.SLACK, "")));
        assertEquals(Kind.DELIVERED, result.outcome(), result.reason());
        JsonNode body = lastBody();
        assertEquals("ingestion pipeline run failed: mysql_prod.ingest_orders — 5 impacted assets",
                body.get("text").asText());
        String listed = body.get("blocks").get(2).get("text").get("text").asText();
        assertEquals("5 impacted assets:\n"
                + "table mysql_prod.shop.public.customers (output, Tier.Tier2, owners: bob)\n"
                + "table mysql_prod.shop.public.orders (output, Tier.Tier1, owners: ana)\n"
                + "… and 3 more impacted assets", listed);
    }

    @Test
    void teamsAndGoogleChatListThemInTheirFormatsLimitedToTheDestinationsTier() {
        String tier1 = ",\"impactTiers\":[\"Tier.Tier1\"]";
        ImpactResolver resolver = resolver(ImpactSettings.DEFAULTS);
        new ChatDestination(ChatFormat.MS_TEAMS, sender, MESSAGES, resolver)
                .deliver(request(chat(SubscriptionType.MS_TEAMS, tier1)));
        JsonNode card = lastBody().at("/attachments/0/content/body");
        assertEquals("ingestion pipeline run failed: mysql_prod.ingest_orders — 3 impacted assets",
                card.get(0).get("text").asText());
        String teams = card.get(2).get("text").asText();
        assertTrue(teams.startsWith("3 impacted assets:\ntable mysql_prod.shop.public.orders (output, Tier.Tier1"),
                teams);
        assertTrue(teams.contains("dashboard superset.revenue (downstream 2, Tier.Tier1, owners: bob)"), teams);
        new ChatDestination(ChatFormat.G_CHAT, sender, MESSAGES, resolver)
                .deliver(request(chat(SubscriptionType.G_CHAT, tier1)));
        String gchat = lastBody().at("/cardsV2/0/card/sections/0/widgets/2/textParagraph/text").asText();
        assertEquals(teams, gchat);
    }

    @Test
    void aWebhookBodyCarriesTheRunAndItsImpact() {
        DeliveryResult result = new WebhookDestination(sender, Clock.systemUTC(), resolver(ImpactSettings.DEFAULTS))
                .deliver(request(chat(SubscriptionType.WEBHOOK, "")));
        assertEquals(Kind.DELIVERED, result.outcome(), result.reason());
        JsonNode body = lastBody();
        assertEquals(ImpactEstate.PIPELINE, body.get("pipelineFqn").asText());
        assertEquals("failed", body.get("state").asText());
        assertEquals("critical-failures", body.get("subscriptionName").asText());
        assertEquals("resolved", body.at("/impact/status").asText());
        assertEquals(5, body.at("/impact/total").asInt());
        assertEquals("warehouse.dw.sales.daily_orders", body.at("/impact/assets/2/fullyQualifiedName").asText());
        assertEquals("data-eng", body.at("/impact/assets/2/owners/0/name").asText());
    }
}
