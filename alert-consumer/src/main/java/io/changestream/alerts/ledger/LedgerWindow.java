package io.changestream.alerts.ledger;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The settled pairs of one owned source partition that can come back: ledger records of this group whose source
 * offset is at or after the committed offset at assignment. Filled once by the rebuild thread, then read by
 * processor threads; {@link #ready} completes when the rebuild ends (complete, partial or failed).
 */
final class LedgerWindow {

    final TopicPartition source;
    final long committed;
    final Map<String, String> settled = new ConcurrentHashMap<>();
    final CompletableFuture<Void> ready = new CompletableFuture<>();
    volatile boolean released;
    volatile long scanned;
    volatile long rebuildMillis;
    volatile String result = "pending";

    LedgerWindow(TopicPartition source, long committed) {
        this.source = source;
        this.committed = committed;
    }

    static String key(String subscriptionId, String eventId) {
        return subscriptionId + "/" + eventId;
    }

    DeliveryLedger.WindowStatus status() {
        return new DeliveryLedger.WindowStatus(source.topic(), source.partition(), committed, scanned,
                settled.size(), rebuildMillis, result);
    }
}
