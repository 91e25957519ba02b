package io.changestream.runtime.internal;

import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.Processor;
import io.changestream.state.StateManager;
import java.time.Clock;
import org.apache.kafka.common.TopicPartition;

/**
 * What every lane worker shares: the user's processor and failure handler, the commit state, the retry policy, the
 * delay scheduler, the key-to-lane assigner, metrics and the clock. Immutable; each part is thread-safe.
 */
record Processing<K, V>(
        Processor<K, V> processor,
        FailureHandler<K, V> failureHandler,
        StateManager<TopicPartition> stateManager,
        Backoff backoff,
        int maxAttempts,
        long processingTimeoutMillis,
        DelayScheduler delays,
        LaneAssigner assigner,
        RuntimeMetrics metrics,
        Clock clock) {
}
