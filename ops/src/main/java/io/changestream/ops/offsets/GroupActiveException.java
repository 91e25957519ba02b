package io.changestream.ops.offsets;

import io.changestream.ops.OpsException;

/** The group has active members, so its offsets may not be reset (Kafka's tool refuses the same way). */
public final class GroupActiveException extends OpsException {

    private static final long serialVersionUID = 1L;

    GroupActiveException(String group, String state, int members) {
        super("Assignments can only be reset if the group '" + group + "' is inactive, but the current state is "
                + state + " (" + members + " active member" + (members == 1 ? "" : "s")
                + "); stop its consumers first");
    }
}
