package io.changestream.ops.offsets;

import io.changestream.ops.OpsException;
import io.changestream.ops.kafka.AdminCalls;
import io.changestream.ops.UsageException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Describes and resets a consumer group's committed offsets with the semantics of Kafka's
 * {@code kafka-consumer-groups --reset-offsets} (REFERENCES.md, section E):
 * <ul>
 * <li>{@code to-datetime}/{@code by-duration}: the earliest offset whose record timestamp is at or after the
 *     instant; no such record (time past the end, or an empty partition) → the log end offset;</li>
 * <li>{@code to-offset}/{@code shift-by}: clamped to [log start, log end]; shifting needs a committed offset;</li>
 * <li>only a group without active members (state Empty or Dead, or an unknown group) is reset; otherwise
 *     {@link GroupActiveException} — unlike Kafka's tool, which prints the refusal and exits 0.</li>
 * </ul>
 * A plan is computed first ({@link #plan}); {@link #execute} commits it. Called from one thread (the CLI's); the
 * {@link Admin} client is the caller's and stays open.
 */
public final class OffsetReset {

    private final Admin admin;
    private final Clock clock;
    private final Duration timeout;

    /**
     * @param admin   the admin client (not closed by this class)
     * @param clock   the clock {@code by-duration} subtracts from
     * @param timeout the bound on each admin request
     */
    public OffsetReset(Admin admin, Clock clock, Duration timeout) {
        this.admin = Objects.requireNonNull(admin, "admin");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new UsageException("offsets request timeout must be > 0, was " + timeout);
        }
    }

    /** The group's committed offsets, log end offsets and lag, plus the partitions its members own. */
    public GroupOffsets describe(String group) {
        ConsumerGroupDescription description = describeGroup(group);
        Map<TopicPartition, OffsetAndMetadata> committed = committedOffsets(group);
        Map<TopicPartition, MemberDescription> owners = new HashMap<>();
        int members = 0;
        if (description != null) {
            members = description.members().size();
            for (MemberDescription m : description.members()) {
                m.assignment().topicPartitions().forEach(tp -> owners.put(tp, m));
            }
        }
        Set<TopicPartition> partitions = sorted(committed.keySet());
        partitions.addAll(owners.keySet());
        Map<TopicPartition, Long> ends = listOffsets(partitions, OffsetSpec.latest());
        List<GroupOffsets.Row> rows = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata c = committed.get(tp);
            long end = ends.get(tp);
            MemberDescription m = owners.get(tp);
            rows.add(new GroupOffsets.Row(tp, c == null ? -1 : c.offset(), end, c == null ? -1 : end - c.offset(),
                    m == null ? "-" : m.consumerId(), m == null ? "-" : m.host(), m == null ? "-" : m.clientId()));
        }
        return new GroupOffsets(group, stateOf(description), members, rows);
    }

    /**
     * The plan for resetting {@code group} on {@code selection} to {@code strategy}, without changing anything.
     * With {@link ResetStrategy.FromFile} the file names the partitions and {@code selection} is ignored.
     *
     * @throws GroupActiveException while the group has active members
     * @throws UsageException       for an unknown topic or partition, or nothing to reset
     */
    public ResetPlan plan(String group, TopicSelection selection, ResetStrategy strategy) {
        return plan(group, selection, strategy, false);
    }

    /**
     * {@code --all-groups}: the plan of every consumer group ({@link #consumerGroups}). A group with active members is
     * listed as refused and left out, as Kafka's tool does (which goes on with the other groups); with
     * {@code --all-topics} a group without committed offsets gets an empty plan.
     *
     * @param files with {@code --from-file}, the strategy of each group named in the file (others are left out);
     *              otherwise null and {@code strategy} applies to every group
     */
    public GroupsPlan planAllGroups(TopicSelection selection, ResetStrategy strategy,
                                    Map<String, ResetStrategy.FromFile> files) {
        List<ResetPlan> plans = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (String group : consumerGroups()) {
            ResetStrategy s = files == null ? strategy : files.get(group);
            if (s == null) {
                continue;
            }
            try {
                plans.add(plan(group, selection, s, true));
            } catch (GroupActiveException e) {
                refused.add(e.getMessage());
            }
        }
        return new GroupsPlan(plans, refused);
    }

    /**
     * What {@link #planAllGroups} found.
     *
     * @param plans   one plan per inactive group, by group id
     * @param refused the refusal of each group with active members
     */
    public record GroupsPlan(List<ResetPlan> plans, List<String> refused) {
        public GroupsPlan {
            plans = List.copyOf(plans);
            refused = List.copyOf(refused);
        }
    }

    private ResetPlan plan(String group, TopicSelection selection, ResetStrategy strategy, boolean allowEmpty) {
        ConsumerGroupDescription description = describeGroup(group);
        GroupState state = stateOf(description);
        requireInactive(group, state, description);
        Map<TopicPartition, OffsetAndMetadata> committed = committedOffsets(group);
        Set<TopicPartition> partitions = strategy instanceof ResetStrategy.FromFile f
                ? partitionsToReset(group, fileSelection(f), committed)
                : allowEmpty && selection.allTopics() && committed.isEmpty() ? Set.of()
                : partitionsToReset(group, selection, committed);
        Map<TopicPartition, Long> starts = listOffsets(partitions, OffsetSpec.earliest());
        Map<TopicPartition, Long> ends = listOffsets(partitions, OffsetSpec.latest());
        Long instant = strategy instanceof ResetStrategy.ToDatetime t ? Long.valueOf(t.epochMillis())
                : strategy instanceof ResetStrategy.ByDuration d
                ? Long.valueOf(clock.instant().minus(d.duration()).toEpochMilli()) : null;
        Map<TopicPartition, Long> byTime = instant == null ? Map.of()
                : listOffsets(partitions, OffsetSpec.forTimestamp(instant));
        List<PartitionPlan> rows = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata c = committed.get(tp);
            rows.add(row(tp, c == null ? -1 : c.offset(), starts.get(tp), ends.get(tp), strategy, byTime.get(tp)));
        }
        return new ResetPlan(group, state, strategy, rows, false);
    }

    /**
     * Commits {@code plan}'s offsets for its group, re-checking first that the group is still inactive.
     *
     * @return the plan marked as executed
     * @throws GroupActiveException when a member joined since the plan was made
     */
    public ResetPlan execute(ResetPlan plan) {
        ConsumerGroupDescription description = describeGroup(plan.group());
        requireInactive(plan.group(), stateOf(description), description);
        try {
            await(admin.alterConsumerGroupOffsets(plan.group(), plan.offsets()).all(), "commit offsets of group "
                    + plan.group());
        } catch (OpsException e) {
            if (e.getCause() instanceof GroupNotEmptyException || e.getCause() instanceof UnknownMemberIdException) {
                throw new GroupActiveException(plan.group(), "not empty", -1);
            }
            throw e;
        }
        return plan.asExecuted();
    }

    /**
     * Every consumer group the cluster knows (what {@code --all-groups} resets), sorted by id.
     */
    public List<String> consumerGroups() {
        Collection<org.apache.kafka.clients.admin.GroupListing> groups = await(admin.listGroups(
                org.apache.kafka.clients.admin.ListGroupsOptions.forConsumerGroups()).all(), "list consumer groups");
        return groups.stream().map(org.apache.kafka.clients.admin.GroupListing::groupId).sorted().toList();
    }

    private static PartitionPlan row(TopicPartition tp, long current, long start, long end, ResetStrategy strategy,
                                     Long byTime) {
        if (strategy instanceof ResetStrategy.ToDatetime || strategy instanceof ResetStrategy.ByDuration) {
            return timestampRow(tp, current, start, end, byTime);
        }
        if (strategy instanceof ResetStrategy.ToCurrent) {
            return current < 0 ? new PartitionPlan(tp, current, start, end, end, "no committed offset: log end")
                    : new PartitionPlan(tp, current, start, end, current, "");
        }
        if (strategy instanceof ResetStrategy.FromFile f) {
            return clamped(tp, current, start, end, f.offsets().get(tp));
        }
        if (strategy instanceof ResetStrategy.ToEarliest) {
            return new PartitionPlan(tp, current, start, end, start, "");
        }
        if (strategy instanceof ResetStrategy.ToLatest) {
            return new PartitionPlan(tp, current, start, end, end, "");
        }
        if (strategy instanceof ResetStrategy.ToOffset o) {
            return clamped(tp, current, start, end, o.offset());
        }
        ResetStrategy.ShiftBy shift = (ResetStrategy.ShiftBy) strategy;
        if (current < 0) {
            throw new OpsException("Cannot shift offset for partition " + tp
                    + " since there is no current committed offset");
        }
        return clamped(tp, current, start, end, current + shift.delta());
    }

    private static PartitionPlan timestampRow(TopicPartition tp, long current, long start, long end, Long found) {
        if (found == null || found < 0) {
            return new PartitionPlan(tp, current, start, end, end, "no record at/after time: log end");
        }
        return new PartitionPlan(tp, current, start, end, found, "");
    }

    private static PartitionPlan clamped(TopicPartition tp, long current, long start, long end, long requested) {
        if (requested > end) {
            return new PartitionPlan(tp, current, start, end, end, requested + " > log end: log end");
        }
        if (requested < start) {
            return new PartitionPlan(tp, current, start, end, start, requested + " < log start: log start");
        }
        return new PartitionPlan(tp, current, start, end, requested, "");
    }

    private static void requireInactive(String group, GroupState state, ConsumerGroupDescription description) {
        if (state != GroupState.EMPTY && state != GroupState.DEAD) {
            throw new GroupActiveException(group, state.toString(),
                    description == null ? 0 : description.members().size());
        }
    }

    /** The partitions a CSV plan names, as {@code --topic T:p,…} arguments, so they are checked the same way. */
    private static TopicSelection fileSelection(ResetStrategy.FromFile file) {
        Map<String, List<Integer>> byTopic = new java.util.TreeMap<>();
        file.offsets().keySet().forEach(tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>())
                .add(tp.partition()));
        return new TopicSelection(false, byTopic.entrySet().stream()
                .map(e -> new TopicSelection.TopicArg(e.getKey(), e.getValue())).toList());
    }

    private Set<TopicPartition> partitionsToReset(String group, TopicSelection selection,
                                                  Map<TopicPartition, OffsetAndMetadata> committed) {
        if (selection.allTopics()) {
            if (committed.isEmpty()) {
                throw new UsageException("group '" + group + "' has no committed offsets: --all-topics selects "
                        + "nothing; name the topics with --topic");
            }
            return sorted(committed.keySet());
        }
        List<String> names = selection.topics().stream().map(TopicSelection.TopicArg::topic).distinct().toList();
        Map<String, TopicDescription> topics;
        try {
            topics = await(admin.describeTopics(names).allTopicNames(), "describe topics " + names);
        } catch (OpsException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new UsageException("unknown topic among " + names + ": " + e.getCause().getMessage());
            }
            throw e;
        }
        Set<TopicPartition> out = sorted(List.of());
        for (TopicSelection.TopicArg arg : selection.topics()) {
            int count = topics.get(arg.topic()).partitions().size();
            if (arg.partitions().isEmpty()) {
                for (int p = 0; p < count; p++) {
                    out.add(new TopicPartition(arg.topic(), p));
                }
            } else {
                for (int p : arg.partitions()) {
                    if (p < 0 || p >= count) {
                        throw new UsageException("topic " + arg.topic() + " has no partition " + p + " (it has "
                                + count + ")");
                    }
                    out.add(new TopicPartition(arg.topic(), p));
                }
            }
        }
        return out;
    }

    private ConsumerGroupDescription describeGroup(String group) {
        if (group == null || group.isBlank()) {
            throw new UsageException("--group is required");
        }
        try {
            return await(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group),
                    "describe group " + group);
        } catch (OpsException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return null;
            }
            throw e;
        }
    }

    private static GroupState stateOf(ConsumerGroupDescription description) {
        return description == null ? GroupState.DEAD : description.groupState();
    }

    private Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) {
        Map<TopicPartition, OffsetAndMetadata> map = await(
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(), "list offsets of " + group);
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        map.forEach((tp, o) -> {
            if (o != null) {
                out.put(tp, o);
            }
        });
        return out;
    }

    private Map<TopicPartition, Long> listOffsets(Collection<TopicPartition> partitions, OffsetSpec spec) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, OffsetSpec> request = partitions.stream()
                .collect(Collectors.toMap(Function.identity(), tp -> spec));
        Map<TopicPartition, ListOffsetsResultInfo> result = await(admin.listOffsets(request).all(),
                "list offsets");
        Map<TopicPartition, Long> out = new HashMap<>();
        result.forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    private <T> T await(KafkaFuture<T> future, String what) {
        return AdminCalls.await(future, timeout, what);
    }

    private static Set<TopicPartition> sorted(Collection<TopicPartition> partitions) {
        Set<TopicPartition> set = new TreeSet<>(Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
        set.addAll(partitions);
        return set;
    }
}
