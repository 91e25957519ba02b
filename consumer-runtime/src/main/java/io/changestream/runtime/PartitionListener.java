package io.changestream.runtime;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Told when this instance starts or stops owning partitions, for state kept per partition next to the runtime (the
 * alert service rebuilds its delivery-ledger window on assignment). Called on the consumer thread inside
 * {@code poll}: before any event of an assigned partition is routed, and after a released partition's events are
 * done or dropped. Must return quickly (start long work elsewhere); an exception is logged and ignored.
 */
public interface PartitionListener {

    /** A listener that does nothing (the default). */
    PartitionListener NONE = new PartitionListener() {
    };

    /**
     * Partitions now owned, each with its committed offset (the next offset to read), or -1 when the group has
     * none; only offsets from the committed one on can be handed to the processor again.
     */
    default void onAssigned(Map<TopicPartition, Long> committedOffsets) {
    }

    /** Partitions no longer owned (revoked, lost, or released at close). */
    default void onReleased(Collection<TopicPartition> partitions) {
    }
}
