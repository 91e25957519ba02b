package io.changestream.alerts.service;

import static io.changestream.alerts.service.AlertTestSupport.create;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.changestream.testkit.ImpactEstate;
import io.changestream.testkit.PlatformStandIn;
import io.changestream.alerts.destination.lineage.ImpactRunFacet;
import io.changestream.alerts.destination.lineage.LineageSchemas;
import io.changestream.testkit.Brokers;
import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import jakarta.mail.Address;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Failure impact on the real path (issue 28): run statuses on {@code pipeline-status} → alert service → a local
 * OpenLineage collector, GreenMail and a Slack receiver, with the impact read from a local stand-in of the
 * platform's lineage, entity and user APIs. The subscription watches critical pipelines only ({@code filterByTag}):
 * a failed Tier1 pipeline arrives as a FAIL event with real datasets and the impact facet, and as an impact alert
 * to the owners of what it hurts; an untagged pipeline's failure is filtered out; while the platform is slow the
 * failure goes out on time, saying the impact is unknown.
 */
class ImpactIT {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private final KafkaBroker broker = Brokers.shared();

    @Test
    void aCriticalPipelinesFailureCarriesItsImpactAsLineageAndReachesTheOwnersOfWhatItHurts() throws Exception {
        String ns = AlertTestSupport.namespace("impact");
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 2);
        AlertTestSupport.provision(broker, catalog);
        try (PlatformStandIn platform = new PlatformStandIn(); Receiver receiver = new Receiver()) {
            ImpactEstate.fill(platform);
            platform.ingestionPipeline("mysql_prod.ingest_late", "metadata", "databaseService", "mysql_prod",
                    "Tier.Tier1");
            Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
            AlertTestSupport.smtp(settings, SMTP.getSmtp().getPort());
            settings.put("destinations.platformUrl", platform.url().toString());
            settings.put("destinations.platform.bearerToken", PlatformStandIn.TOKEN);
            settings.put("lineage.batchWindow", "PT0S");
            settings.put("impact.timeout", "PT0.5S");
            settings.put("impact.topAssets", "3");
            try (AlertService service = AlertService.start(AlertTestSupport.config(settings))) {
                create(service.httpPort(), ImpactEstate.criticalFailures(receiver.url("/api/v1/lineage"),
                        """
                        {"category": "DownstreamOwners", "type": "Slack", "config": {"endpoint": "%s"}}"""
                        .formatted(receiver.url("/slack"))));
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> service.runtime().status()
                        .partitions().stream().anyMatch(p -> p.topic().equals(catalog.pipelineStatus().name())));

                long now = System.currentTimeMillis();
                AlertTestSupport.produceRuns(broker, catalog, List.of(
                        new PipelineRunStatus(ImpactEstate.PIPELINE, "run-1", PipelineState.FAILED, now - 60_000,
                                now, now),
                        new PipelineRunStatus("mysql_prod.insights", "run-1", PipelineState.FAILED, now - 60_000,
                                now, now)));
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> receiver.hits("/slack").size() >= 1
                        && receiver.hits("/api/v1/lineage").size() >= 1 && SMTP.getReceivedMessages().length >= 4);

                JsonNode event = receiver.hits("/api/v1/lineage").get(0).body();
                assertEquals(List.of(), LineageSchemas.violations(event), event.toString());
                assertEquals(ImpactEstate.PIPELINE, event.at("/job/name").asText());
                assertEquals("mysql_prod.shop.public.customers", event.at("/outputs/0/name").asText());
                JsonNode impact = event.at("/run/facets/" + ImpactRunFacet.NAME);
                assertEquals("resolved", impact.get("status").asText());
                assertEquals(5, impact.get("total").asInt());
                Set<String> to = new TreeSet<>();
                for (MimeMessage m : SMTP.getReceivedMessages()) {
                    Arrays.stream(m.getAllRecipients()).map(Address::toString).forEach(to::add);
                }
                assertEquals(Set.of("ana@cs.test", "bob@cs.test", "data-eng@cs.test", ImpactEstate.ONCALL), to);
                String slack = receiver.hits("/slack").get(0).body().at("/blocks/2/text/text").asText();
                assertTrue(slack.startsWith("5 impacted assets:\ntable mysql_prod.shop.public.customers"), slack);
                assertTrue(slack.endsWith("… and 2 more impacted assets"), slack);

                // the platform slow: the next critical failure goes out on time without impact, and says so
                platform.latency(Duration.ofSeconds(3));
                long sent = System.nanoTime();
                AlertTestSupport.produceRuns(broker, catalog, List.of(new PipelineRunStatus(
                        "mysql_prod.ingest_late", "run-2", PipelineState.FAILED, now, now + 1, now + 1)));
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> receiver.hits("/slack").size() >= 2
                        && receiver.hits("/api/v1/lineage").size() >= 2);
                long took = Duration.ofNanos(System.nanoTime() - sent).toMillis();
                assertTrue(took < 3000, "the slow platform held the alerts back " + took + " ms");
                JsonNode late = receiver.hits("/api/v1/lineage").get(1).body();
                assertEquals(List.of(), LineageSchemas.violations(late), late.toString());
                assertEquals("unavailable", late.at("/run/facets/" + ImpactRunFacet.NAME + "/status").asText());
                String lateSlack = receiver.hits("/slack").get(1).body().get("text").asText();
                assertTrue(lateSlack.endsWith("— impact unknown"), lateSlack);

                List<String> jobs = new ArrayList<>();
                receiver.hits("/api/v1/lineage").forEach(h -> jobs.add(h.body().at("/job/name").asText()));
                assertEquals(List.of(ImpactEstate.PIPELINE, "mysql_prod.ingest_late"), jobs,
                        "the untagged pipeline's failure was filtered out");
            }
        }
    }
}
