package io.changestream.ops.cli;

import io.changestream.ops.UsageException;
import io.changestream.ops.topics.CatalogInspector;
import io.changestream.topics.CatalogTopic;
import io.changestream.topics.TopicCatalog;
import io.changestream.topics.TopicSpec;
import io.changestream.topics.admin.ProvisionerSettings;
import io.changestream.topics.admin.ProvisioningReport;
import io.changestream.topics.admin.TopicProvisioner;
import java.io.PrintWriter;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code changestream topics apply|describe}: the topic catalog on a cluster. */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = "Provision changestream's topic catalog on a cluster, or compare the cluster with it.",
        subcommands = {TopicsCommand.Apply.class, TopicsCommand.Describe.class})
final class TopicsCommand extends ParentCommand {

    /** The catalog options both subcommands share. */
    abstract static class CatalogCommand extends NamespacedCommand {

        @Option(names = "--replication-factor", defaultValue = "3",
                description = "Replication factor of every topic (default ${DEFAULT-VALUE}; 1 for a single broker).")
        short replicationFactor;

        @Option(names = "--changes-partitions", defaultValue = "12",
                description = "Partitions of changes and alert-ledger (default ${DEFAULT-VALUE}).")
        int changesPartitions;

        TopicCatalog catalog() {
            try {
                return new TopicCatalog(namespace).withReplicationFactor(replicationFactor)
                        .withPartitions(CatalogTopic.CHANGES, changesPartitions);
            } catch (RuntimeException e) {
                throw new UsageException(e.getMessage());
            }
        }
    }

    /** {@code topics apply}: create missing topics, raise partitions, align configs; idempotent. */
    @Command(name = "apply", mixinStandardHelpOptions = true,
            description = "Create missing topics, raise partition counts and align configs (idempotent); prints "
                    + "what changed.")
    static final class Apply extends CatalogCommand {

        @Override
        public Integer call() {
            TopicCatalog catalog = catalog();
            Duration timeout = kafka.timeout;
            try (Admin admin = kafka.admin(Launcher.of(spec).env())) {
                ProvisioningReport report = new TopicProvisioner(admin,
                        new ProvisionerSettings(timeout, timeout, ProvisionerSettings.DEFAULT_METADATA_POLL_INTERVAL))
                        .provision(catalog.all());
                PrintWriter out = spec.commandLine().getOut();
                Table table = new Table("TOPIC", "CHANGE", "DETAIL");
                report.created().forEach(t -> table.row(t, "created", describe(catalog.byName(t).orElseThrow())));
                report.partitionsRaised().forEach((t, c) -> table.row(t, "partitions", c));
                report.configsChanged().forEach((t, changes) -> changes.forEach((key, c) -> table.row(t, "config",
                        key + ": " + c)));
                report.unchanged().forEach(t -> table.row(t, "unchanged", "-"));
                table.print(out);
                report.warnings().forEach(w -> out.println("WARNING: " + w));
                out.println(report.noChanges() ? "The cluster already matched the catalog: nothing changed."
                        : "Applied.");
            }
            return Launcher.OK;
        }

        private static String describe(TopicSpec spec) {
            return spec.partitions() + " partitions, rf " + spec.replicationFactor() + ", " + spec.configs();
        }
    }

    /** {@code topics describe}: each catalog topic as found on the cluster. */
    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = "Compare every catalog topic with the cluster (exit 0 even when some differ).")
    static final class Describe extends CatalogCommand {

        @Override
        public Integer call() {
            try (Admin admin = kafka.admin(Launcher.of(spec).env())) {
                Table table = new Table("TOPIC", "STATUS", "PARTITIONS", "REPLICATION", "POLICY", "DIFFERENCES");
                for (CatalogInspector.TopicState s : new CatalogInspector(admin, kafka.timeout).inspect(catalog().all())) {
                    String status = !s.exists() ? "missing" : s.matches() ? "ok" : "differs";
                    table.row(s.spec().name(), status,
                            s.exists() ? s.partitions() + "/" + s.spec().partitions() : "-/" + s.spec().partitions(),
                            s.exists() ? s.replication() + "/" + s.spec().replicationFactor()
                                    : "-/" + s.spec().replicationFactor(),
                            s.spec().cleanupPolicy().configValue(),
                            s.differences().isEmpty() ? "-" : String.join("; ", s.differences()));
                }
                table.print(spec.commandLine().getOut());
            }
            return Launcher.OK;
        }
    }
}
