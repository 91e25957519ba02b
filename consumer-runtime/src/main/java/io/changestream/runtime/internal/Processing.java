package io.changestream.runtime.internal;

import io.changestream.runtime.Backoff;
import io.changestream.runtime.AsyncProcessor;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.Processor;
import io.changestream.state.StateManager;
import java.time.Clock;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * What every lane worker shares: the user's processor (exactly one of {@code processor} and {@code asyncProcessor})
 * and failure handler, the commit state, the retry policy, the delay scheduler, the key-to-lane assigner, the call
 * limits of an asynchronous processor, the bytes taken in and not done, metrics, the clock, and where a fatal error
 * goes. Immutable; each part is thread-safe.
 */
record Processing<K, V>(
        Processor<K, V> processor,
        AsyncProcessor<K, V> asyncProcessor,
        FailureHandler<K, V> failureHandler,
        StateManager<OwnedPartition> stateManager,
        Backoff backoff,
        int maxAttempts,
        long processingTimeoutMillis,
        DelayScheduler delays,
        LaneAssigner assigner,
        int maxCallsPerLane,
        CallSlots calls,
        LongAdder bufferedBytes,
        RuntimeMetrics metrics,
        Clock clock,
        Consumer<Throwable> onFatal) {

    Processing {
        if ((processor == null) == (asyncProcessor == null)) {
            throw new IllegalArgumentException("exactly one of processor and asyncProcessor");
        }
    }

    boolean async() {
        return asyncProcessor != null;
    }
}
