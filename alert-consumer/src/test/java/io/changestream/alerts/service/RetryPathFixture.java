package io.changestream.alerts.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.testkit.KafkaBroker;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.model.ChangeEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One namespace of an alert service whose retry path acts fast (inline budget 1 s, rechecks every 0.2 s), with the
 * checks the retry-path tests make: the main group's lag, events over a few entities, and "every event once, per
 * entity in the order produced".
 *
 * @param broker   the broker
 * @param catalog  the namespace's topics (four partitions of changes), provisioned
 * @param settings the service's settings (a mutable map)
 */
record RetryPathFixture(KafkaBroker broker, TopicCatalog catalog, Map<String, String> settings) {

    /** A fresh namespace named after {@code name}, its topics created. */
    static RetryPathFixture of(KafkaBroker broker, String name) {
        String ns = AlertTestSupport.namespace(name);
        TopicCatalog catalog = AlertTestSupport.catalog(ns, 4);
        AlertTestSupport.provision(broker, catalog);
        Map<String, String> settings = AlertTestSupport.settings(broker, ns, ns + "group");
        settings.put("retry.inlineBudget", "PT1S");
        settings.put("retry.recheckInterval", "PT0.2S");
        settings.put("retry.publishInterval", "PT0.2S");
        settings.put("retry.lanes", "2");
        return new RetryPathFixture(broker, catalog, settings);
    }

    /** {@code count} entity updates over {@code entities} entities (ids from {@code prefix}), in produce order. */
    static List<ChangeEvent> events(String prefix, int count, int entities) {
        List<ChangeEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String entityId = UUID.nameUUIDFromBytes((prefix + (i % entities)).getBytes()).toString();
            events.add(AlertTestSupport.event(ChangeEvent.ENTITY_UPDATED, "table", entityId, "svc.db.t" + i));
        }
        return events;
    }

    /** Records on changes the main group has not committed past. */
    long lag() throws Exception {
        String topic = catalog.changes().name();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                    settings.get("group.id")).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < catalog.changes().partitions(); p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            long lag = 0;
            for (var e : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet()) {
                OffsetAndMetadata c = committed.get(e.getKey());
                lag += e.getValue().offset() - (c == null ? 0 : c.offset());
            }
            return lag;
        }
    }

    /** The event ids of the hits. */
    static Set<String> ids(List<Receiver.Hit> hits) {
        Set<String> out = new HashSet<>();
        hits.forEach(h -> out.add(h.body().get("id").asText()));
        return out;
    }

    /** Every event except those in {@code earlier} exactly once, per entity in the order produced. */
    static void assertOncePerEventInEntityOrder(List<Receiver.Hit> hits, List<ChangeEvent> events,
                                                Set<String> earlier) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            index.put(events.get(i).id(), i);
        }
        Set<String> seen = new HashSet<>();
        Map<String, Integer> lastOfEntity = new HashMap<>();
        for (Receiver.Hit h : hits) {
            String id = h.body().get("id").asText();
            if (earlier.contains(id)) {
                continue;
            }
            assertTrue(seen.add(id), "event " + id + " delivered twice");
            int i = index.get(id);
            Integer previous = lastOfEntity.put(h.body().get("entityId").asText(), i);
            assertTrue(previous == null || previous < i, "entity order broken: event " + i + " after " + previous);
        }
        assertEquals(events.size() - earlier.size(), seen.size(), "every event arrived");
    }
}
