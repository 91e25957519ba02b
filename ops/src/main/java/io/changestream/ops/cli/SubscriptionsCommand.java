package io.changestream.ops.cli;

import io.changestream.ops.UsageException;
import io.changestream.ops.subscriptions.SubscriptionsClient;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code changestream subscriptions apply|list|resume}: subscriptions as JSON files, through the admin API; resume
 * suspended destinations (decision 1120).
 */
@Command(name = "subscriptions", mixinStandardHelpOptions = true,
        description = "Create/update subscriptions from the platform's CreateEventSubscription JSON files, list them, "
                + "or resume their suspended destinations.",
        subcommands = {SubscriptionsCommand.Apply.class, SubscriptionsCommand.ListCommand.class,
                SubscriptionsCommand.Resume.class})
final class SubscriptionsCommand extends ParentCommand {

    /** The admin API options both subcommands share. */
    abstract static class ApiCommand implements Callable<Integer> {

        /** Environment variable that may carry the admin token. */
        static final String TOKEN_ENV = "CHANGESTREAM_ADMIN_TOKEN";

        @Spec
        CommandSpec spec;

        @Option(names = "--url", defaultValue = "http://localhost:8591",
                description = "The alert service's base URL (default ${DEFAULT-VALUE}).")
        URI url;

        @Option(names = "--token", description = "Admin bearer token (default: $" + TOKEN_ENV + ").")
        String token;

        @Option(names = "--timeout", defaultValue = "PT20S", description = "Bound on each request (default "
                + "${DEFAULT-VALUE}).")
        Duration timeout;

        SubscriptionsClient client() {
            String t = token != null ? token : Launcher.of(spec).env().get(TOKEN_ENV);
            if (t == null || t.isBlank()) {
                throw new UsageException("the admin token is required: --token or $" + TOKEN_ENV);
            }
            return new SubscriptionsClient(url, t, timeout);
        }
    }

    /** {@code subscriptions apply -f file-or-dir}. */
    @Command(name = "apply", mixinStandardHelpOptions = true,
            description = "Create or update one subscription per JSON file (a file, or every *.json of a directory).")
    static final class Apply extends ApiCommand {

        @Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE|DIR", description = "A JSON file or a "
                + "directory of them.")
        Path file;

        @Override
        public Integer call() {
            Table table = new Table("FILE", "NAME", "ID", "CHANGE");
            for (SubscriptionsClient.Applied a : client().apply(SubscriptionsClient.files(file))) {
                table.row(a.file(), a.name(), a.id(), a.created() ? "created" : "updated");
            }
            table.print(spec.commandLine().getOut());
            return Launcher.OK;
        }
    }

    /** {@code subscriptions resume ID|NAME [--destination ID]}. */
    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resume a subscription's destinations "
            + "(suspended by a 410 or a failure streak): parked notifications then go out in order.")
    static final class Resume extends ApiCommand {

        @picocli.CommandLine.Parameters(index = "0", paramLabel = "ID|NAME", description = "The subscription's id or "
                + "name.")
        String subscription;

        @Option(names = "--destination", paramLabel = "ID", description = "Only this destination (default: all of "
                + "the subscription's).")
        String destination;

        @Override
        public Integer call() {
            Table table = new Table("SUBSCRIPTION", "DESTINATION", "CHANGE");
            for (String id : client().resume(subscription, destination)) {
                table.row(subscription, id, "resumed");
            }
            table.print(spec.commandLine().getOut());
            return Launcher.OK;
        }
    }

    /** {@code subscriptions list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the stored subscriptions.")
    static final class ListCommand extends ApiCommand {

        @Override
        public Integer call() {
            Table table = new Table("NAME", "ID", "TYPE", "ENABLED", "DESTINATIONS");
            for (SubscriptionsClient.Listed s : client().list()) {
                table.row(s.name(), s.id(), s.alertType(), s.enabled(), s.destinations());
            }
            table.print(spec.commandLine().getOut());
            return Launcher.OK;
        }
    }
}
