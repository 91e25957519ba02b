package io.changestream.alerts.ledger;

import io.changestream.topics.model.DeliveryRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The kinds of records on {@code alert-ledger} besides the pair records ({@link DeliveryRecord#DELIVERED},
 * {@link DeliveryRecord#DEAD_LETTERED} without a destination), their keys, and which ledger partition a source
 * partition's records go to. Shared by the service and {@code ops offsets reset}. Stateless.
 *
 * <ul>
 *   <li>group progress: {@code destinationId} = the destination group's key, status {@code DELIVERED} (that group
 *       got it), {@code SKIPPED} (that group was settled without sending: nothing to send; done like DELIVERED)
 *       or {@value #ATTEMPTING} (an at-most-once group is about to be sent); key
 *       {@code <pair key>|<group key>};</li>
 *   <li>reset marker: subscription {@value #RESET_SUBSCRIPTION}, status {@value #RESET}, event id
 *       {@code <topic>:<partition>}; written by {@code ops offsets reset --execute}: a window rebuild ignores every
 *       settlement of that source partition it read before the marker.</li>
 * </ul>
 */
public final class LedgerRecords {

    /** Status of a group record written before an at-most-once send. */
    public static final String ATTEMPTING = "ATTEMPTING";
    /** Status of a reset marker. */
    public static final String RESET = "RESET";
    /** The subscription id of reset markers (no real subscription id contains {@code *}). */
    public static final String RESET_SUBSCRIPTION = "*reset*";

    private LedgerRecords() {
    }

    /**
     * The ledger partition of a source partition: the same number while the ledger has that many partitions, which
     * the catalog keeps (ledger partitions = {@code changes} partitions, {@code topics apply} raises both), so adding
     * partitions never moves an existing source partition's records. Only a ledger smaller than the source falls back
     * to the modulus (the service warns at each rebuild).
     */
    public static int ledgerPartition(int sourcePartition, int ledgerPartitions) {
        if (ledgerPartitions < 1) {
            throw new IllegalArgumentException("the ledger topic has no partitions");
        }
        return sourcePartition < ledgerPartitions ? sourcePartition : sourcePartition % ledgerPartitions;
    }

    /** The Kafka key of a group progress record. */
    public static String groupKey(DeliveryRecord r) {
        return r.key() + "|" + r.destinationId();
    }

    /** The Kafka key of a record: group records get their own key so compaction keeps one per group. */
    public static String keyOf(DeliveryRecord r) {
        return r.destinationId() == null ? r.key() : groupKey(r);
    }

    /** A reset marker for one source partition of a group, at the offset the group was reset to. */
    public static DeliveryRecord resetMarker(String groupId, TopicPartition source, long newOffset, long nowMillis) {
        return new DeliveryRecord(groupId, RESET_SUBSCRIPTION, source.topic() + ":" + source.partition(), null,
                RESET, 0, nowMillis, source.topic(), source.partition(), newOffset);
    }

    /** Whether a record is a reset marker. */
    public static boolean isReset(DeliveryRecord r) {
        return RESET.equals(r.status()) && RESET_SUBSCRIPTION.equals(r.subscriptionId());
    }
}
