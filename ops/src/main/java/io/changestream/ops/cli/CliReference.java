package io.changestream.ops.cli;

import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Renders every command and option of the launcher, with defaults, as a Markdown table: the configuration reference
 * in ops/README.md is this output, and a test keeps the two equal. Stateless.
 */
final class CliReference {

    private CliReference() {
    }

    /** The Markdown table. */
    static String markdown() {
        StringBuilder out = new StringBuilder("| command | option | default | meaning |\n|---|---|---|---|\n");
        render(new CommandLine(new Launcher(Map.of(), Clock.systemUTC())), out);
        return out.toString();
    }

    private static void render(CommandLine cmd, StringBuilder out) {
        CommandSpec spec = cmd.getCommandSpec();
        for (OptionSpec o : spec.options()) {
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            String def = o.defaultValue() == null ? (o.required() ? "required" : "") : o.defaultValue();
            out.append("| `").append(spec.qualifiedName().replaceFirst("^changestream ?", "")).append("` | `")
                    .append(String.join("`, `", o.names())).append("` | ").append(def.isEmpty() ? "" : "`" + def + "`")
                    .append(" | ").append(String.join(" ", o.description())
                            .replace("${DEFAULT-VALUE}", def).replace("|", "\\|")).append(" |\n");
        }
        cmd.getSubcommands().values().forEach(sub -> render(sub, out));
    }
}
