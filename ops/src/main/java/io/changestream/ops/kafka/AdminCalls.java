package io.changestream.ops.kafka;

import io.changestream.ops.OpsException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.KafkaFuture;

/** Waits for Admin client results with a bound, turning failures into {@link OpsException}s with the cause kept. */
public final class AdminCalls {

    private AdminCalls() {
    }

    /**
     * The result of {@code future}, waiting at most {@code timeout}.
     *
     * @throws OpsException naming {@code what} when it failed (cause: the broker's exception), timed out or the
     *                      thread was interrupted (the interrupt flag is restored)
     */
    public static <T> T await(KafkaFuture<T> future, Duration timeout, String what) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OpsException("interrupted: " + what, e);
        } catch (ExecutionException e) {
            throw new OpsException(what + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new OpsException(what + " did not answer within " + timeout, e);
        }
    }
}
