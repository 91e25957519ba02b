package io.changestream.ops.offsets;

import java.util.List;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer group's position on every partition it has committed to or is assigned: what
 * {@code offsets describe} prints.
 *
 * @param group   the consumer group
 * @param state   the group's state
 * @param members number of active members
 * @param rows    one row per partition, in topic/partition order
 */
public record GroupOffsets(String group, GroupState state, int members, List<Row> rows) {

    public GroupOffsets {
        rows = List.copyOf(rows);
    }

    /** Sum of the lag of every partition with a committed offset. */
    public long totalLag() {
        return rows.stream().filter(r -> r.lag() >= 0).mapToLong(Row::lag).sum();
    }

    /**
     * One partition.
     *
     * @param partition       the partition
     * @param committedOffset the committed offset, or -1 when none
     * @param logEnd          the log end offset
     * @param lag             log end minus committed, or -1 without a committed offset
     * @param consumerId      the member that owns it now, or "-"
     * @param host            that member's host, or "-"
     * @param clientId        that member's client id, or "-"
     */
    public record Row(TopicPartition partition, long committedOffset, long logEnd, long lag, String consumerId,
                      String host, String clientId) {
    }
}
