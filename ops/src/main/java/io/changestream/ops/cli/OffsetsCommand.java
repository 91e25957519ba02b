package io.changestream.ops.cli;

import io.changestream.ops.offsets.GroupOffsets;
import io.changestream.ops.offsets.OffsetReset;
import io.changestream.ops.offsets.PartitionPlan;
import io.changestream.ops.offsets.LedgerNamespace;
import io.changestream.ops.offsets.ResetMarkers;
import io.changestream.ops.UsageException;
import io.changestream.ops.offsets.ResetPlan;
import io.changestream.ops.offsets.ResetPlanCsv;
import io.changestream.ops.offsets.ResetStrategy;
import io.changestream.ops.offsets.TopicSelection;
import io.changestream.topics.TopicCatalog;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code changestream offsets describe|reset}: a consumer group's lag, and Kafka-style offset resets. */
@Command(name = "offsets", mixinStandardHelpOptions = true,
        description = "Describe a consumer group's offsets and lag, or reset them (kafka-consumer-groups semantics).",
        subcommands = {OffsetsCommand.Describe.class, OffsetsCommand.Reset.class})
final class OffsetsCommand extends ParentCommand {

    /** {@code offsets describe --group G}. */
    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = "Per partition: committed offset, log end offset, lag and the member that owns it.")
    static final class Describe extends GroupCommand {

        @Override
        public Integer call() {
            Launcher launcher = Launcher.of(spec);
            try (Admin admin = kafka.admin(launcher.env())) {
                GroupOffsets offsets = new OffsetReset(admin, launcher.clock(), kafka.timeout).describe(group);
                PrintWriter out = spec.commandLine().getOut();
                out.printf("Consumer group '%s' is %s with %d active member(s); total lag %d.%n",
                        offsets.group(), offsets.state(), offsets.members(), offsets.totalLag());
                Table table = new Table("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
                        "CONSUMER-ID", "HOST", "CLIENT-ID");
                for (GroupOffsets.Row r : offsets.rows()) {
                    table.row(offsets.group(), r.partition().topic(), r.partition().partition(),
                            dash(r.committedOffset()), r.logEnd(), dash(r.lag()), r.consumerId(), r.host(),
                            r.clientId());
                }
                table.print(out);
            }
            return Launcher.OK;
        }
    }

    /** {@code offsets reset}: dry run by default, {@code --execute} to commit. */
    @Command(name = "reset", mixinStandardHelpOptions = true,
            description = {"Reset a group's committed offsets, with the semantics of kafka-consumer-groups "
                    + "--reset-offsets. Prints the plan; commits it only with --execute.",
                    "Refuses (exit 1) while the group has active members.",
                    "For an alert group, --execute also writes a reset marker per partition to the alert-ledger: "
                            + "the group re-delivers from the new offsets (receivers see the same Idempotency-Key). "
                            + "--skip-delivered keeps dedupe: only what the group did not deliver yet is sent."})
    static final class Reset extends KafkaCommand {

        @ArgGroup(exclusive = true, multiplicity = "1")
        Groups groups;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Scope scope;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Target target;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Mode mode;

        @Option(names = "--skip-delivered", description = "With --execute: write no reset marker, so the alert "
                + "service still skips pairs it delivered (within ledger.dedupeHorizon) and sends only the rest.")
        boolean skipDelivered;

        @Option(names = "--namespace", description = "Topic name prefix of the alert-ledger the reset markers go to "
                + "(default: the namespace of the group's topics, e.g. hr. for hr.changes; refused when they "
                + "disagree).")
        String namespace;

        static final class Groups {
            @Option(names = "--group", required = true, description = "The consumer group.")
            String group;

            @Option(names = "--all-groups", required = true, description = "Every consumer group; groups with "
                    + "active members are refused (exit 1) and the others reset.")
            boolean allGroups;
        }

        @Option(names = "--export", description = "Print the plan as Kafka's CSV (topic,partition,offset; with "
                + "--all-groups group,topic,partition,offset) instead of the table, for --from-file.")
        boolean export;

        static final class Scope {
            @Option(names = "--topic", paramLabel = "TOPIC[:P,P]", description = "A topic, optionally with "
                    + "partitions (repeatable).")
            List<String> topics;

            @Option(names = "--all-topics", description = "Every topic the group has committed offsets for.")
            boolean allTopics;
        }

        static final class Target {
            @Option(names = "--to-datetime", paramLabel = "yyyy-MM-ddTHH:mm:ss.SSS[XXX]",
                    description = "First offset at/after this time (no zone = UTC; past the end = log end).")
            String toDatetime;

            @Option(names = "--by-duration", paramLabel = "DURATION",
                    description = "First offset at/after now minus this ISO-8601 duration, e.g. PT1H.")
            String byDuration;

            @Option(names = "--to-earliest", description = "The log start offset.")
            boolean toEarliest;

            @Option(names = "--to-latest", description = "The log end offset.")
            boolean toLatest;

            @Option(names = "--to-offset", paramLabel = "N", description = "This offset, clamped to the log.")
            Long toOffset;

            @Option(names = "--shift-by", paramLabel = "N", description = "Committed offset "
                    + "plus N (may be negative), clamped to the log.")
            Long shiftBy;

            @Option(names = "--to-current", description = "The committed offset (log end where there is none).")
            boolean toCurrent;

            @Option(names = "--from-file", paramLabel = "CSV", description = "The offsets of a plan file in "
                    + "Kafka's CSV format (as --export prints it); the file names the partitions.")
            java.nio.file.Path fromFile;
        }

        static final class Mode {
            @Option(names = "--dry-run", description = "Only print the plan (the default).")
            boolean dryRun;

            @Option(names = "--execute", description = "Commit the new offsets.")
            boolean execute;
        }

        @Override
        public Integer call() {
            Launcher launcher = Launcher.of(spec);
            if (target.fromFile != null && scope != null) {
                throw new UsageException("--from-file names its partitions: drop --topic/--all-topics");
            }
            if (target.fromFile == null && scope == null) {
                throw new UsageException("give --topic or --all-topics (or --from-file)");
            }
            Map<String, ResetStrategy.FromFile> files = target.fromFile == null ? null : readPlanFile();
            ResetStrategy strategy = files == null ? strategy() : null;
            TopicSelection selection = scope == null ? null
                    : scope.allTopics ? TopicSelection.all() : TopicSelection.of(scope.topics);
            boolean execute = mode != null && mode.execute;
            try (Admin admin = kafka.admin(launcher.env())) {
                OffsetReset reset = new OffsetReset(admin, launcher.clock(), kafka.timeout);
                if (groups.allGroups) {
                    return allGroups(launcher, admin, reset, selection, strategy, files, execute);
                }
                ResetStrategy forGroup = files == null ? strategy : files.get(groups.group);
                if (forGroup == null) {
                    throw new UsageException("--from-file " + target.fromFile + " has no plan for group '"
                            + groups.group + "'");
                }
                ResetPlan plan = reset.plan(groups.group, selection, forGroup);
                List<Optional<String>> ledgers = List.of(ledgerNamespace(plan)); // refused before anything changes
                if (execute) {
                    plan = reset.execute(plan);
                }
                if (export) {
                    spec.commandLine().getOut().print(ResetPlanCsv.export(List.of(plan), false));
                } else {
                    print(plan, spec.commandLine().getOut());
                }
                if (execute) {
                    PrintWriter notes = export ? spec.commandLine().getErr() : spec.commandLine().getOut();
                    mark(launcher, admin, List.of(plan), ledgers, notes);
                }
            }
            return Launcher.OK;
        }

        /** The namespace of the ledger a plan's markers go to (none with {@code --skip-delivered}). */
        private Optional<String> ledgerNamespace(ResetPlan plan) {
            return skipDelivered ? Optional.empty() : LedgerNamespace.resolve(plan, namespace);
        }

        /**
         * Writes the reset markers unless {@code --skip-delivered}, each plan's to the ledger of its namespace
         * ({@code ledgers}, in plan order); says what the alert service will do.
         */
        private void mark(Launcher launcher, Admin admin, List<ResetPlan> plans, List<Optional<String>> ledgers,
                          PrintWriter out) {
            if (skipDelivered) {
                out.println("--skip-delivered: no reset marker; the alert service skips what the group already "
                        + "delivered and sends the rest.");
                return;
            }
            try (Producer<String, String> producer = new KafkaProducer<>(kafka.properties(launcher.env()).with(
                    Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.CLIENT_ID_CONFIG, "changestream-ops")),
                    new StringSerializer(), new StringSerializer())) {
                ResetMarkers markers = new ResetMarkers(admin, producer, launcher.clock(), kafka.timeout);
                for (int i = 0; i < plans.size(); i++) {
                    ResetPlan plan = plans.get(i);
                    if (ledgers.get(i).isEmpty()) {
                        out.println("No reset marker for group '" + plan.group() + "': its topics are no "
                                + "changestream source topics (changes, pipeline-status, alert-retry).");
                        continue;
                    }
                    String ledger = new TopicCatalog(ledgers.get(i).get()).alertLedger().name();
                    int written = markers.write(plan, ledger);
                    out.println(written == 0 ? "No " + ledger + " topic: no reset marker written for group '"
                            + plan.group() + "'."
                            : "Wrote " + written + " reset marker(s) to " + ledger + ": the group re-delivers from "
                            + "the new offsets.");
                }
            }
        }

        private int allGroups(Launcher launcher, Admin admin, OffsetReset reset, TopicSelection selection,
                              ResetStrategy strategy, Map<String, ResetStrategy.FromFile> files, boolean execute) {
            OffsetReset.GroupsPlan all = reset.planAllGroups(selection, strategy, files);
            List<Optional<String>> ledgers = all.plans().stream().map(this::ledgerNamespace).toList();
            List<ResetPlan> plans = new java.util.ArrayList<>();
            for (ResetPlan plan : all.plans()) {
                plans.add(execute ? reset.execute(plan) : plan);
            }
            PrintWriter out = spec.commandLine().getOut();
            if (export) {
                out.print(ResetPlanCsv.export(plans, true));
            } else {
                plans.forEach(p -> print(p, out));
            }
            if (execute && !plans.isEmpty()) {
                mark(launcher, admin, plans, ledgers, export ? spec.commandLine().getErr() : out);
            }
            all.refused().forEach(spec.commandLine().getErr()::println);
            return all.refused().isEmpty() ? Launcher.OK : Launcher.FAILED;
        }

        private Map<String, ResetStrategy.FromFile> readPlanFile() {
            String csv;
            try {
                csv = java.nio.file.Files.readString(target.fromFile);
            } catch (java.io.IOException e) {
                throw new UsageException("--from-file " + target.fromFile + " cannot be read: " + e.getMessage());
            }
            Map<String, ResetStrategy.FromFile> out = new java.util.LinkedHashMap<>();
            ResetPlanCsv.parse(csv, groups.allGroups ? null : groups.group).forEach((g, offsets) ->
                    out.put(g, new ResetStrategy.FromFile(target.fromFile.toString(), offsets)));
            return out;
        }

        private ResetStrategy strategy() {
            if (target.toDatetime != null) {
                return ResetStrategy.toDatetime(target.toDatetime);
            }
            if (target.byDuration != null) {
                return ResetStrategy.byDuration(target.byDuration);
            }
            if (target.toEarliest) {
                return new ResetStrategy.ToEarliest();
            }
            if (target.toLatest) {
                return new ResetStrategy.ToLatest();
            }
            if (target.toOffset != null) {
                return new ResetStrategy.ToOffset(target.toOffset);
            }
            if (target.toCurrent) {
                return new ResetStrategy.ToCurrent();
            }
            return new ResetStrategy.ShiftBy(target.shiftBy);
        }

        private static void print(ResetPlan plan, PrintWriter out) {
            out.printf("%s reset of group '%s' (state %s): %s%n", plan.executed() ? "Executed" : "Dry-run",
                    plan.group(), plan.state(), plan.strategy().option());
            Table table = new Table("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-START", "LOG-END",
                    "NEW-OFFSET", "NOTE");
            for (PartitionPlan r : plan.rows()) {
                table.row(plan.group(), r.partition().topic(), r.partition().partition(), dash(r.currentOffset()),
                        r.logStart(), r.logEnd(), r.newOffset(), r.note().isEmpty() ? "-" : r.note());
            }
            table.print(out);
            if (!plan.executed()) {
                out.println("Nothing was changed (dry run). Add --execute to commit these offsets.");
            }
        }
    }

    /** What both subcommands share: the Kafka connection. */
    abstract static class KafkaCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        KafkaOptions kafka;
    }

    /** A command on one group. */
    abstract static class GroupCommand extends KafkaCommand {

        @Option(names = "--group", required = true, description = "The consumer group.")
        String group;
    }

    static String dash(long value) {
        return value < 0 ? "-" : Long.toString(value);
    }
}
