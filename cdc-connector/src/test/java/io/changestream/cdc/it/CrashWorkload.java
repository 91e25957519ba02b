package io.changestream.cdc.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The crash tests' workload: change events of a few entities, inserted in paced transactions on a thread of their
 * own while the test kills connectors, and the checks on what reached {@code changes}: every event id, and per-entity
 * order (first occurrence of each id, by the {@code offset} column). {@link #committed()} is read by the test thread.
 */
final class CrashWorkload {

    private final List<String> entities = new ArrayList<>();
    private final List<String> ids = new ArrayList<>();
    private final AtomicInteger committed = new AtomicInteger();

    CrashWorkload(int rows, int entityCount) {
        for (int i = 0; i < entityCount; i++) {
            entities.add(UUID.randomUUID().toString());
        }
        for (int i = 0; i < rows; i++) {
            ids.add(UUID.randomUUID().toString());
        }
    }

    int rows() {
        return ids.size();
    }

    /** Rows committed so far. */
    int committed() {
        return committed.get();
    }

    /**
     * Inserts every row with {@code insertSql} (one {@code ?}: the JSON), {@code rowsPerTx} per transaction, pausing
     * {@code pauseMs} after each so the kills land mid-stream.
     */
    CompletableFuture<Void> start(Callable<Connection> connections, String insertSql, int rowsPerTx, long pauseMs) {
        return CompletableFuture.runAsync(() -> {
            try (Connection c = connections.call(); PreparedStatement insert = c.prepareStatement(insertSql)) {
                c.setAutoCommit(false);
                for (int i = 0; i < ids.size(); i++) {
                    insert.setString(1, Rows.changeEvent(ids.get(i), "entityUpdated", "table",
                            entities.get(i % entities.size()), 1_700_000_000_000L + i, ""));
                    insert.addBatch();
                    if ((i + 1) % rowsPerTx == 0) {
                        insert.executeBatch();
                        c.commit();
                        committed.set(i + 1);
                        TimeUnit.MILLISECONDS.sleep(pauseMs);
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException("inserting rows failed", e);
            }
        });
    }

    /**
     * Reads {@code changes} until every inserted id is there, handing each record to {@code onRecord}; then asserts
     * nothing else arrived and per-entity order holds. Returns every record read (repeats included).
     */
    List<ConsumerRecord<String, String>> awaitEveryIdInOrder(TopicReader reader, Duration timeout,
                                                             BiConsumer<ConsumerRecord<String, String>, JsonNode> onRecord) {
        Set<String> expected = new HashSet<>(ids);
        Map<String, JsonNode> firstById = new LinkedHashMap<>();
        int[] handled = {0};
        await().atMost(timeout).until(() -> {
            List<ConsumerRecord<String, String>> records = reader.poll();
            for (int i = handled[0]; i < records.size(); i++) {
                JsonNode v = TopicReader.parse(records.get(i).value());
                onRecord.accept(records.get(i), v);
                firstById.putIfAbsent(v.path("id").asText(), v);
            }
            handled[0] = records.size();
            return firstById.keySet().containsAll(expected);
        });
        assertEquals(expected, firstById.keySet(), "every row's event id, nothing else");
        Map<String, Long> lastOffsetByEntity = new HashMap<>();
        // the topic is partitioned by entity: order per entity is the order within its partition
        for (JsonNode v : firstById.values()) {
            long offset = v.at("/source/sourceOffset").asLong();
            Long previous = lastOffsetByEntity.put(v.path("entityId").asText(), offset);
            assertTrue(previous == null || previous < offset, "per-entity order broken at " + v.path("id"));
        }
        return List.copyOf(reader.poll().subList(0, handled[0]));
    }
}
