package io.changestream.ops.cli;

import io.changestream.ops.UsageException;
import io.changestream.ops.dlq.DeadLetters;
import io.changestream.ops.offsets.ResetStrategy;
import io.changestream.topics.TopicCatalog;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code changestream dlq list|replay}: dead-lettered alerts. */
@Command(name = "dlq", mixinStandardHelpOptions = true,
        description = "Inspect dead-lettered alerts (alert-dlq) and replay them through the normal path.",
        subcommands = {DlqCommand.ListCommand.class, DlqCommand.Replay.class})
final class DlqCommand extends ParentCommand {

    /** Options both subcommands share. */
    abstract static class DlqSubcommand extends NamespacedCommand {

        @Option(names = "--since", paramLabel = "yyyy-MM-ddTHH:mm:ss.SSS[XXX]|DURATION",
                description = "Only dead letters written at/after this time (a datetime as in offsets reset, or an "
                        + "ISO-8601 duration back from now such as PT1H).")
        String since;

        @Option(names = "--limit", defaultValue = "1000", description = "At most this many (default ${DEFAULT-VALUE}).")
        int limit;

        DeadLetters deadLetters() {
            try {
                return new DeadLetters(kafka.properties(Launcher.of(spec).env()), new TopicCatalog(namespace),
                        kafka.timeout);
            } catch (RuntimeException e) {
                if (e instanceof UsageException) {
                    throw e;
                }
                throw new UsageException(e.getMessage());
            }
        }

        Instant sinceInstant() {
            if (since == null) {
                return null;
            }
            if (since.startsWith("P") || since.startsWith("-P")) {
                return Launcher.of(spec).clock().instant().minus(ResetStrategy.byDuration(since).duration());
            }
            return Instant.ofEpochMilli(ResetStrategy.toDatetime(since).epochMillis());
        }

        static void print(List<DeadLetters.Entry> entries, PrintWriter out) {
            Table table = new Table("DLQ-POSITION", "TIME", "SUBSCRIPTION", "EVENT-ID", "EVENT", "ENTITY", "SOURCE",
                    "ATTEMPTS", "REASON");
            for (DeadLetters.Entry e : entries) {
                var f = e.failed();
                var ev = f.changeEvent();
                table.row(e.partition() + ":" + e.offset(), e.timestamp(), f.subscriptionId(), ev.id(), ev.eventType(),
                        ev.entityType() + " " + (ev.entityFullyQualifiedName() == null ? ev.entityId()
                                : ev.entityFullyQualifiedName()), f.source(), f.attempts(),
                        f.reason().replace('\n', ' '));
            }
            table.print(out);
        }
    }

    /** {@code dlq list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List dead-lettered alerts.")
    static final class ListCommand extends DlqSubcommand {

        @Option(names = "--subscription", description = "Only this subscription id (default: all).")
        String subscription;

        @Override
        public Integer call() {
            List<DeadLetters.Entry> entries = deadLetters().list(subscription, sinceInstant(), limit);
            PrintWriter out = spec.commandLine().getOut();
            print(entries, out);
            out.println(entries.size() + " dead letter(s).");
            return Launcher.OK;
        }
    }

    /** {@code dlq replay}: dry run by default. */
    @Command(name = "replay", mixinStandardHelpOptions = true,
            description = {"Re-deliver a subscription's dead-lettered alerts: their events go back onto changes with "
                    + "the replay headers, and the alert-consumer delivers them through the normal path (ledger and "
                    + "Idempotency-Key guard against duplicates).", "Prints what would be replayed unless --execute."})
    static final class Replay extends DlqSubcommand {

        @Option(names = "--subscription", required = true, description = "The subscription id.")
        String subscription;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Mode mode;

        static final class Mode {
            @Option(names = "--dry-run", description = "Only print what would be replayed (the default).")
            boolean dryRun;

            @Option(names = "--execute", description = "Replay.")
            boolean execute;
        }

        @Override
        public Integer call() {
            DeadLetters dl = deadLetters();
            List<DeadLetters.Entry> entries = dl.list(subscription, sinceInstant(), limit);
            PrintWriter out = spec.commandLine().getOut();
            print(entries, out);
            if (mode == null || !mode.execute) {
                out.println(entries.size() + " dead letter(s) would be replayed (dry run). Add --execute to replay.");
                return Launcher.OK;
            }
            List<String> positions = dl.replay(entries);
            out.println("Replayed " + positions.size() + " event(s) onto " + new TopicCatalog(namespace).changes().name()
                    + " at " + positions + ".");
            return Launcher.OK;
        }
    }
}
