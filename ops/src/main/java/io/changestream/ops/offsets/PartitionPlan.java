package io.changestream.ops.offsets;

import org.apache.kafka.common.TopicPartition;

/**
 * One row of a reset plan.
 *
 * @param partition     the partition
 * @param currentOffset the group's committed offset, or -1 when it has none
 * @param logStart      the partition's log start offset
 * @param logEnd        the partition's log end offset
 * @param newOffset     where the committed offset goes
 * @param note          why the new offset is not the one asked for (fallback or clamp), or empty
 */
public record PartitionPlan(TopicPartition partition, long currentOffset, long logStart, long logEnd,
                            long newOffset, String note) {
}
