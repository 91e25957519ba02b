package io.changestream.ops;

/** The user asked for something that cannot be done as asked (bad option value, unknown topic); exit code 2. */
public class UsageException extends OpsException {

    private static final long serialVersionUID = 1L;

    /** A usage error with a one-line reason naming the option or value at fault. */
    public UsageException(String message) {
        super(message);
    }
}
