package io.changestream.cdc.prereq;

import io.changestream.cdc.CdcException;
import java.util.List;

/**
 * The configured database misses one or more prerequisites of the capture: its message names the database and lists
 * every missing setting or grant, each with how to fix it. Not retriable as such: the capture loop keeps the engine
 * stopped and checks again after its backoff, so a grant given meanwhile is picked up without a restart.
 */
public final class PrerequisiteException extends CdcException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;

    PrerequisiteException(String database, List<String> problems) {
        super(message(database, problems));
        this.problems = List.copyOf(problems);
    }

    /** Each missing setting or grant, one sentence each, in the order they were checked. */
    public List<String> problems() {
        return problems;
    }

    private static String message(String database, List<String> problems) {
        StringBuilder s = new StringBuilder("database prerequisites not met on ").append(database).append(" (")
                .append(problems.size()).append(problems.size() == 1 ? " problem" : " problems")
                .append("; cdc-connector/README.md, Database prerequisites):");
        for (int i = 0; i < problems.size(); i++) {
            s.append(' ').append(i + 1).append(") ").append(problems.get(i));
        }
        return s.toString();
    }
}
