package io.changestream.runtime;

/**
 * Thrown by a {@link Processor} for a failure that may pass on a later attempt (a timeout of a remote call, a 503):
 * the runtime retries it with exponential backoff and jitter, up to {@link RuntimeConfig#maxAttempts()}. Every other
 * exception is a final failure (except Kafka's own {@link org.apache.kafka.common.errors.RetriableException}).
 */
public class RetryLaterException extends ConsumerRuntimeException {

    private static final long serialVersionUID = 1L;

    public RetryLaterException(String message) {
        super(message);
    }

    public RetryLaterException(String message, Throwable cause) {
        super(message, cause);
    }
}
