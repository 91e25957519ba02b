package io.changestream.ops.cli;

import java.time.Clock;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
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
            String def = o.defaultValue() == null ? requirement(o) : o.defaultValue();
            out.append("| `").append(spec.qualifiedName().replaceFirst("^changestream ?", "")).append("` | `")
                    .append(String.join("`, `", o.names())).append("` | ").append(def.isEmpty() ? "" : "`" + def + "`")
                    .append(" | ").append(String.join(" ", o.description())
                            .replace("${DEFAULT-VALUE}", def).replace("|", "\\|")).append(" |\n");
        }
        cmd.getSubcommands().values().forEach(sub -> render(sub, out));
    }

    /**
     * "required" only for an option the command cannot run without. Picocli marks every option of an exclusive
     * group required (one of them must be given when the group is); such an option is "one of …" when the group
     * itself is required and optional (empty) otherwise.
     */
    static String requirement(OptionSpec o) {
        ArgGroupSpec group = o.group();
        if (group == null) {
            return o.required() ? "required" : "";
        }
        for (ArgGroupSpec g = group; g != null; g = g.parentGroup()) {
            if (g.multiplicity().min() == 0) {
                return "";
            }
        }
        if (group.exclusive()) {
            int n = group.options().size();
            return n == 1 ? "required" : n <= 3 ? "one of " + group.options().stream()
                    .map(OptionSpec::longestName).collect(Collectors.joining(", ")) : "one of these " + n;
        }
        return o.required() ? "required" : "";
    }
}
