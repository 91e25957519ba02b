package io.changestream.ops.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** A command that only groups subcommands: run alone, it is a usage error listing them. */
abstract class ParentCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: "
                + String.join(", ", spec.subcommands().keySet()));
    }
}
