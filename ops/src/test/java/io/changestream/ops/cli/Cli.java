package io.changestream.ops.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;

/** Runs launcher commands in-process for tests. */
final class Cli {

    private Cli() {
    }

    /** One command's exit code and output. */
    record Result(int code, String out, String err) {
    }

    static Result run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new Launcher(env, Clock.systemUTC()).run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }
}
