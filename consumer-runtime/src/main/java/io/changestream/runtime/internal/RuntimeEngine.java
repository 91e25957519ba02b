package io.changestream.runtime.internal;

import io.changestream.runtime.CloseMode;
import io.changestream.runtime.FailureHandler;
import io.changestream.runtime.KeyFunction;
import io.changestream.runtime.PartitionListener;
import io.changestream.runtime.Processor;
import io.changestream.runtime.RuntimeConfig;
import io.changestream.runtime.RuntimeState;
import io.changestream.runtime.RuntimeStatus;
import io.changestream.runtime.metrics.RuntimeMeter;
import io.changestream.state.StateManager;
import io.changestream.state.StateManagerSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Builds and wires the runtime's parts: one {@link StateManager}, the lanes with their {@link LaneLoop} workers, the
 * {@link DelayScheduler} and its {@link TimerLoop}, and one {@link ConsumerLoop} per consumer thread. The public
 * {@code ConsumerRuntime} owns the lifecycle and calls {@link #start} and {@link #close} once each.
 */
public final class RuntimeEngine<K, V> {

    /** Extra time a consumer thread gets past the close deadline to leave the group. */
    static final long CONSUMER_CLOSE_GRACE_MILLIS = 5_000;

    private final RuntimeConfig config;
    private final Supplier<? extends Deserializer<K>> keys;
    private final Supplier<? extends Deserializer<V>> values;
    private final KeyFunction<K, V> keyFunction;
    private final Clock clock;
    private final String threadPrefix;
    private final Consumer<Throwable> onFatal;
    private final PartitionListener partitionListener;
    private final StateManager<TopicPartition> stateManager;
    private final DelayScheduler delays = new DelayScheduler();
    private final RuntimeMetrics metrics;
    private final LaneAssigner assigner;
    private final List<LaneLoop<K, V>> lanes = new ArrayList<>();
    private final List<ConsumerLoop<K, V>> loops = new ArrayList<>();
    private final List<Thread> loopThreads = new ArrayList<>();
    private final TimerLoop timer;
    private Thread timerThread;

    public RuntimeEngine(RuntimeConfig config, Supplier<? extends Deserializer<K>> keys,
                         Supplier<? extends Deserializer<V>> values, Processor<K, V> processor,
                         FailureHandler<K, V> failureHandler, KeyFunction<K, V> keyFunction, MeterRegistry registry,
                         Clock clock, long seed, String threadPrefix, PartitionListener partitionListener,
                         Consumer<Throwable> onFatal) {
        this.config = config;
        this.keys = keys;
        this.values = values;
        this.keyFunction = keyFunction;
        this.clock = clock;
        this.threadPrefix = threadPrefix;
        this.onFatal = onFatal;
        this.partitionListener = partitionListener;
        int maxPollRecords = Integer.parseInt(String.valueOf(
                config.kafka().getOrDefault(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500")));
        // the consumer thread pauses a partition at maxInFlightPerPartition; one more poll may still arrive
        this.stateManager = new StateManager<>(clock, new StateManagerSettings(
                StateManagerSettings.DEFAULT_INITIAL_HEAP_CAPACITY, config.maxInFlightPerPartition() + maxPollRecords));
        this.metrics = new RuntimeMetrics(registry, config.groupId());
        Backoff backoff = new Backoff(config.initialBackoff(), config.maxBackoff(), config.backoffMultiplier(),
                config.jitter());
        this.assigner = LaneAssigner.of(config.keyAssignment(), config.lanes());
        Processing<K, V> processing = new Processing<>(processor, failureHandler, stateManager, backoff,
                config.maxAttempts(), config.processingTimeout().toMillis(), delays, assigner, metrics, clock);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < config.lanes(); i++) {
            Lane<K, V> lane = new Lane<>(config.laneCapacity());
            lanes.add(new LaneLoop<>(i, lane, processing, random.split(), threadPrefix));
            metrics.gauge(RuntimeMeter.LANE_QUEUE_LENGTH, Tags.of("lane", Integer.toString(i)), lane, Lane::size);
        }
        metrics.gauge(RuntimeMeter.DELAY_QUEUE_SIZE, Tags.empty(), delays, DelayScheduler::size);
        metrics.gauge(RuntimeMeter.PAUSED_PARTITIONS, Tags.empty(), this,
                e -> e.status(RuntimeState.RUNNING, 0).partitions().stream().filter(p -> p.paused()).count());
        this.timer = new TimerLoop(delays, lanes, clock, config.processingTimeout().toMillis());
    }

    /** Creates the consumers (configuration errors surface here) and starts every thread. */
    public void start() {
        List<KafkaConsumer<K, V>> consumers = new ArrayList<>();
        try {
            for (int i = 0; i < config.consumerThreads(); i++) {
                consumers.add(new KafkaConsumer<>(consumerProperties(i), keys.get(), values.get()));
            }
        } catch (RuntimeException e) {
            consumers.forEach(KafkaConsumer::close);
            metrics.close();
            throw e;
        }
        lanes.forEach(LaneLoop::start);
        timerThread = new Thread(timer, threadPrefix + "-timer");
        timerThread.setDaemon(true);
        timerThread.start();
        for (int i = 0; i < consumers.size(); i++) {
            String name = threadPrefix + "-consumer-" + i;
            ConsumerLoop<K, V> loop = new ConsumerLoop<>(name, consumers.get(i), config, stateManager, lanes,
                    keyFunction, assigner, delays, metrics, clock, partitionListener, onFatal);
            loops.add(loop);
            Thread t = new Thread(loop, name);
            loopThreads.add(t);
            t.start();
        }
    }

    private Map<String, Object> consumerProperties(int index) {
        Map<String, Object> props = new HashMap<>(config.kafka());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        Object clientId = props.get(ConsumerConfig.CLIENT_ID_CONFIG);
        if (clientId != null) {
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + index);
        }
        return props;
    }

    /**
     * Closes as {@code mode} says, finishing by {@code deadlineMillis} (consumers get a short grace to leave the
     * group). Returns whether every thread stopped.
     */
    public boolean close(CloseMode mode, long deadlineMillis) throws InterruptedException {
        loops.forEach(l -> l.requestClose(mode, deadlineMillis));
        boolean stopped = true;
        for (Thread t : loopThreads) {
            t.join(Math.max(1, deadlineMillis - clock.millis() + CONSUMER_CLOSE_GRACE_MILLIS));
            stopped &= !t.isAlive();
        }
        for (LaneLoop<K, V> lane : lanes) {
            lane.stop(Math.max(1, deadlineMillis - clock.millis()));
        }
        if (timerThread != null) {
            timer.stop(timerThread);
            timerThread.join(1_000);
        }
        metrics.close();
        return stopped;
    }

    /** For a runtime closed before it started: removes the meters registered at construction. */
    public void discard() {
        metrics.close();
    }

    /** Any thread: the current reading, with at most {@code parkedKeyLimit} parked keys listed. */
    public RuntimeStatus status(RuntimeState state, int parkedKeyLimit) {
        List<RuntimeStatus.PartitionStatus> partitions = new ArrayList<>();
        loops.forEach(l -> partitions.addAll(l.partitions()));
        List<RuntimeStatus.LaneStatus> laneStatus = new ArrayList<>();
        List<RuntimeStatus.ParkedKey> parked = new ArrayList<>();
        int parkedCount = 0;
        for (LaneLoop<K, V> lane : lanes) {
            int keys = lane.parkedKeyCount();
            parkedCount += keys;
            laneStatus.add(new RuntimeStatus.LaneStatus(lane.index, lane.lane.size(), assigner.load(lane.index), keys));
            if (parked.size() < parkedKeyLimit && keys > 0) {
                for (LaneLoop.ParkedKeyView v : lane.parkedKeys(parkedKeyLimit - parked.size())) {
                    parked.add(new RuntimeStatus.ParkedKey(v.lane(), v.key(), v.topic(), v.partition(), v.offset(),
                            v.attempt(), v.notBefore(), v.reason(), v.waitingBehind()));
                }
            }
        }
        return new RuntimeStatus(state, partitions, laneStatus, parked, parkedCount, delays.size());
    }
}
