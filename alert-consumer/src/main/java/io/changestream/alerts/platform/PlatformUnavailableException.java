package io.changestream.alerts.platform;

/**
 * The platform's API could not answer (unreachable, timeout, 5xx, token refused): the receivers of a role are
 * unknown for now, so the delivery is retried rather than sent to fewer people.
 */
public final class PlatformUnavailableException extends RuntimeException {

    public PlatformUnavailableException(String message) {
        super(message);
    }
}
