package io.changestream.topics;

/**
 * Root unchecked exception of the {@code topics} module. Every failure the contracts raise
 * (malformed records, invalid topic specs, provisioning failures) is a subclass or an instance of it.
 */
public class TopicsException extends RuntimeException {

    public TopicsException(String message) {
        super(message);
    }

    public TopicsException(String message, Throwable cause) {
        super(message, cause);
    }
}
