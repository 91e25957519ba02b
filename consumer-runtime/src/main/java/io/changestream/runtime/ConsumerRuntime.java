package io.changestream.runtime;

import io.changestream.runtime.internal.RuntimeEngine;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A generic Kafka consumer runtime: consumer threads (each owning one {@code KafkaConsumer}, manual commits,
 * cooperative-sticky) poll records and route them by key onto bounded FIFO lanes, each drained by one processor
 * thread; failed events wait in a bounded delay queue without blocking other keys; offsets are committed only up to
 * the lowest event not done. It knows records, keys and outcomes, nothing of what the processor does.
 *
 * <p>Owns every thread it starts; {@link #close} stops them all, is idempotent and bounded. Any thread may call
 * {@link #start}, {@link #close}, {@link #status} and {@link #state}. The processor and failure handler run on lane
 * threads; the key function on consumer threads.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class ConsumerRuntime<K, V> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerRuntime.class);
    /** Parked keys listed by {@link #status()}. */
    public static final int STATUS_PARKED_KEY_LIMIT = 100;

    private final RuntimeConfig config;
    private final Clock clock;
    private final RuntimeEngine<K, V> engine;
    private final AtomicReference<RuntimeState> state = new AtomicReference<>(RuntimeState.NEW);
    private final CountDownLatch closed = new CountDownLatch(1);

    private ConsumerRuntime(Builder<K, V> b) {
        this.config = b.config;
        this.clock = b.clock;
        this.engine = new RuntimeEngine<>(b.config, b.keys, b.values, b.processor, b.asyncProcessor,
                b.failureHandler, b.keyFunction, b.registry, b.clock, b.seed, b.threadPrefix, b.partitionListener,
                this::failed);
    }

    /**
     * A builder for a runtime over {@code config}. Deserializers come from suppliers because each consumer thread
     * gets (and closes) its own.
     */
    public static <K, V> Builder<K, V> builder(RuntimeConfig config, Supplier<? extends Deserializer<K>> keys,
                                               Supplier<? extends Deserializer<V>> values, Processor<K, V> processor) {
        return new Builder<>(config, keys, values, Objects.requireNonNull(processor, "processor"), null);
    }

    /**
     * A builder for a runtime whose processor is asynchronous: lanes do not wait for calls, up to
     * {@link RuntimeConfig#maxCallsPerLane()} per lane and {@link RuntimeConfig#maxCalls()} in all run at once.
     */
    public static <K, V> Builder<K, V> asyncBuilder(RuntimeConfig config, Supplier<? extends Deserializer<K>> keys,
                                                    Supplier<? extends Deserializer<V>> values,
                                                    AsyncProcessor<K, V> processor) {
        return new Builder<>(config, keys, values, null, Objects.requireNonNull(processor, "processor"));
    }

    /**
     * Installs the runtime's meter filters (the Kafka meter renaming) on a new registry, before any meter is bound
     * to it: a runtime built on the registry later would add them after the fact, which Micrometer warns about at
     * every start. Idempotent; optional (a runtime installs them itself when they are missing).
     */
    public static void prepareMeters(MeterRegistry registry) {
        RuntimeEngine.prepareMeters(Objects.requireNonNull(registry, "registry"));
    }

    /** Starts the consumer, lane and timer threads. Only once: a runtime is not restartable. */
    public ConsumerRuntime<K, V> start() {
        move(RuntimeState.NEW, RuntimeState.RUNNING);
        try {
            engine.start();
        } catch (RuntimeException e) {
            state.set(RuntimeState.CLOSED);
            closed.countDown();
            throw new ConsumerRuntimeException("the consumer runtime did not start", e);
        }
        return this;
    }

    /** Drains and closes within {@link RuntimeConfig#closeTimeout()}. */
    @Override
    public void close() {
        close(CloseMode.DRAIN, config.closeTimeout());
    }

    /**
     * Closes: stops taking in records, drains or drops the work taken in as {@code mode} says, commits what is done,
     * leaves the group and stops every thread, within {@code timeout} (plus a few seconds for leaving the group).
     * Idempotent: a second call waits for the first one, up to its own timeout.
     */
    public void close(CloseMode mode, Duration timeout) {
        Objects.requireNonNull(mode, "mode");
        long deadline = clock.millis() + timeout.toMillis();
        RuntimeState from = state.get();
        while (from != RuntimeState.CLOSING && from != RuntimeState.CLOSED) {
            if (state.compareAndSet(from, RuntimeState.CLOSING)) {
                finishClose(from, mode, deadline);
                return;
            }
            from = state.get();
        }
        try {
            closed.await(Math.max(0, deadline - clock.millis()), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void finishClose(RuntimeState from, CloseMode mode, long deadline) {
        try {
            if (from == RuntimeState.NEW) {
                engine.discard();
            } else if (!engine.close(mode, deadline)) {
                LOG.warn("consumer runtime of group {}: a consumer thread did not stop in time", config.groupId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            state.set(RuntimeState.CLOSED);
            closed.countDown();
        }
    }

    /**
     * Closes with {@link CloseMode#DRAIN} and {@link RuntimeConfig#closeTimeout()} when the JVM shuts down (SIGTERM).
     * Returns the hook thread (for {@link Runtime#removeShutdownHook}).
     */
    public Thread closeOnShutdown() {
        Thread hook = new Thread(this::close, "changestream-runtime-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /** Any thread: the lifecycle state. */
    public RuntimeState state() {
        return state.get();
    }

    /**
     * Any thread: whether the runtime is alive. False once it failed: a fatal JVM error on a lane, or a consumer thread
     * that died and could not be started again within {@link RuntimeConfig#consumerMaxRestarts()} attempts (a
     * consumer thread that dies is restarted with backoff meanwhile, and the runtime stays live). A service's
     * {@code /health/live} answers with this.
     */
    public boolean live() {
        return state.get() != RuntimeState.FAILED && engine.live();
    }

    /** Any thread: what every partition, lane and parked key is doing now. */
    public RuntimeStatus status() {
        return engine.status(state.get(), STATUS_PARKED_KEY_LIMIT);
    }

    private void failed(Throwable cause) {
        if (state.compareAndSet(RuntimeState.RUNNING, RuntimeState.FAILED)) {
            LOG.error("consumer runtime of group {} failed; close() releases the rest", config.groupId(), cause);
        }
    }

    private void move(RuntimeState from, RuntimeState to) {
        if (!to.allowedPredecessors().contains(from) || !state.compareAndSet(from, to)) {
            throw new IllegalStateException("cannot move the consumer runtime from " + state.get() + " to " + to);
        }
    }

    /**
     * Builds a {@link ConsumerRuntime}. Defaults: failures are logged, the routing key is the record key, meters go
     * to a private {@code SimpleMeterRegistry}, the clock is the system UTC clock.
     */
    public static final class Builder<K, V> {
        private final RuntimeConfig config;
        private final Supplier<? extends Deserializer<K>> keys;
        private final Supplier<? extends Deserializer<V>> values;
        private final Processor<K, V> processor;
        private final AsyncProcessor<K, V> asyncProcessor;
        private FailureHandler<K, V> failureHandler = (event, failure) ->
                LOG.error("{} finally failed ({}, {} attempts): {}", event.coordinates(), failure.kind(),
                        failure.attempts(), failure.reason(), failure.cause());
        private KeyFunction<K, V> keyFunction = KeyFunction.recordKey();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private Clock clock = Clock.systemUTC();
        private long seed = System.nanoTime();
        private String threadPrefix;
        private PartitionListener partitionListener = PartitionListener.NONE;

        private Builder(RuntimeConfig config, Supplier<? extends Deserializer<K>> keys,
                        Supplier<? extends Deserializer<V>> values, Processor<K, V> processor,
                        AsyncProcessor<K, V> asyncProcessor) {
            this.config = Objects.requireNonNull(config, "config");
            this.keys = Objects.requireNonNull(keys, "keys");
            this.values = Objects.requireNonNull(values, "values");
            this.processor = processor;
            this.asyncProcessor = asyncProcessor;
            Object clientId = config.kafka().get(ConsumerConfig.CLIENT_ID_CONFIG);
            this.threadPrefix = "cs-" + (clientId == null ? config.groupId() : clientId);
        }

        /** Receives final failures before they are marked done (the alert service: its DLQ). */
        public Builder<K, V> failureHandler(FailureHandler<K, V> handler) {
            this.failureHandler = Objects.requireNonNull(handler, "failureHandler");
            return this;
        }

        /** KeyBy: which events must stay in order relative to each other. */
        public Builder<K, V> keyFunction(KeyFunction<K, V> function) {
            this.keyFunction = Objects.requireNonNull(function, "keyFunction");
            return this;
        }

        /** Where the {@link io.changestream.runtime.metrics.RuntimeMeter} catalogue is registered. */
        public Builder<K, V> meterRegistry(MeterRegistry meterRegistry) {
            this.registry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /** Clock of not-before times, backoff, timeouts and ages. */
        public Builder<K, V> clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        /** Seed of the backoff jitter, for reproducible tests. */
        public Builder<K, V> seed(long value) {
            this.seed = value;
            return this;
        }

        /** Prefix of every thread name. Default {@code cs-<client.id>}, or {@code cs-<group>} without one. */
        public Builder<K, V> threadPrefix(String prefix) {
            this.threadPrefix = Objects.requireNonNull(prefix, "threadPrefix");
            return this;
        }

        /** Told on the consumer thread when partitions are assigned or released. Default: none. */
        public Builder<K, V> partitionListener(PartitionListener listener) {
            this.partitionListener = Objects.requireNonNull(listener, "partitionListener");
            return this;
        }

        public ConsumerRuntime<K, V> build() {
            return new ConsumerRuntime<>(this);
        }
    }
}
