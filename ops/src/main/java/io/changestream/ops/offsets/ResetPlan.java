package io.changestream.ops.offsets;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;

/**
 * What a reset does (or did) to one group's committed offsets, partition by partition, in topic/partition order.
 *
 * @param group    the consumer group
 * @param state    the group's state when the plan was made (Empty, Dead, or Dead for an unknown group)
 * @param strategy the reset asked for
 * @param rows     one row per partition
 * @param executed true once the offsets were committed ({@code --execute}); false for a dry run
 */
public record ResetPlan(String group, GroupState state, ResetStrategy strategy, List<PartitionPlan> rows,
                        boolean executed) {

    public ResetPlan {
        rows = List.copyOf(rows);
    }

    /** The offsets to commit. */
    public Map<org.apache.kafka.common.TopicPartition, OffsetAndMetadata> offsets() {
        return rows.stream().collect(Collectors.toMap(PartitionPlan::partition,
                r -> new OffsetAndMetadata(r.newOffset())));
    }

    /** This plan, marked as executed. */
    ResetPlan asExecuted() {
        return new ResetPlan(group, state, strategy, rows, true);
    }
}
