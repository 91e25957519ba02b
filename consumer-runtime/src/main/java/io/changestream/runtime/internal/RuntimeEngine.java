package io.changestream.runtime.internal;

import io.changestream.runtime.Backoff;
import io.changestream.runtime.AsyncProcessor;
import io.changestream.runtime.CloseMode;
import io.changestream.runtime.ConsumerRuntimeException;
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
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds and wires the runtime's parts: one {@link StateManager}, the lanes with their {@link LaneLoop} workers, the
 * {@link DelayScheduler} and its {@link TimerLoop}, one {@link ConsumerLoop} per consumer thread, and the periodic
 * {@link StatsLog} line (run by the supervisor thread every {@code statsLogInterval}). The public
 * {@code ConsumerRuntime} owns the lifecycle and calls {@link #start} and {@link #close} once each.
 *
 * <p>It also supervises the consumer threads: one that dies (its partitions are released and its consumer closed)
 * is started again with a new consumer after a backoff ({@code consumerRestartBackoff}, doubling per consecutive
 * failure, at most 32 times); after {@code consumerMaxRestarts} consecutive failures the runtime fails and reports
 * itself not live.
 */
public final class RuntimeEngine<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(RuntimeEngine.class);
    /** A consumer thread that ran this long since its last restart starts its failure count afresh. */
    static final long RESTART_STREAK_RESET_MILLIS = 60_000;

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
    private final StateManager<OwnedPartition> stateManager;
    private final LongAdder bufferedBytes = new LongAdder();
    private final CallSlots calls;
    private final ScheduledExecutorService supervisor;
    private final long[] lastRestartMillis;
    private final int[] restartStreak;
    private final List<KafkaClientMetrics> clientMetrics = new CopyOnWriteArrayList<>();
    private final MeterRegistry registry;
    private volatile boolean closing;
    private volatile boolean gaveUp;
    private final DelayScheduler delays = new DelayScheduler();
    private final RuntimeMetrics metrics;
    private final LaneAssigner assigner;
    private final List<LaneLoop<K, V>> lanes = new ArrayList<>();
    private final List<ConsumerLoop<K, V>> loops = new CopyOnWriteArrayList<>();
    private final List<Thread> loopThreads = new CopyOnWriteArrayList<>();
    private final TimerLoop timer;
    private final StatsLog stats;
    private Thread timerThread;

    public RuntimeEngine(RuntimeConfig config, Supplier<? extends Deserializer<K>> keys,
                         Supplier<? extends Deserializer<V>> values, Processor<K, V> processor,
                         AsyncProcessor<K, V> asyncProcessor, FailureHandler<K, V> failureHandler, KeyFunction<K, V> keyFunction, MeterRegistry registry,
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
        this.registry = registry;
        prepareMeters(registry);
        this.calls = new CallSlots(config.maxCalls());
        this.lastRestartMillis = new long[config.consumerThreads()];
        this.restartStreak = new int[config.consumerThreads()];
        this.supervisor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadPrefix + "-supervisor");
            t.setDaemon(true);
            return t;
        });
        int maxPollRecords = Integer.parseInt(String.valueOf(
                config.kafka().getOrDefault(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500")));
        // the consumer thread pauses a partition at maxInFlightPerPartition; one more poll may still arrive
        this.stateManager = new StateManager<>(clock, new StateManagerSettings(
                StateManagerSettings.DEFAULT_INITIAL_HEAP_CAPACITY, config.maxInFlightPerPartition() + maxPollRecords));
        this.metrics = new RuntimeMetrics(registry, config.groupId());
        Backoff backoff = new Backoff(config.initialBackoff(), config.maxBackoff(), config.backoffMultiplier(),
                config.jitter());
        this.assigner = LaneAssigner.of(config.keyAssignment(), config.lanes());
        Processing<K, V> processing = new Processing<>(processor, asyncProcessor, failureHandler, stateManager,
                backoff, config.maxAttempts(), config.processingTimeout().toMillis(), delays, assigner,
                config.maxCallsPerLane(), calls, bufferedBytes, metrics, clock, onFatal);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < config.lanes(); i++) {
            Lane<K, V> lane = new Lane<>(config.laneCapacity());
            lanes.add(new LaneLoop<>(i, lane, processing, random.split(), threadPrefix));
            metrics.gauge(RuntimeMeter.LANE_QUEUE_LENGTH, Tags.of("lane", Integer.toString(i)), lane, Lane::size);
        }
        metrics.gauge(RuntimeMeter.LANE_QUEUE_DEEPEST, Tags.empty(), lanes, StatsLog::deepestDepth);
        int laneCapacity = config.laneCapacity();
        int delayCapacity = config.delayQueueCapacity();
        long maxBytes = config.maxBufferedBytes();
        metrics.gauge(RuntimeMeter.BUFFER_USAGE, Tags.of("buffer", "bytes"), bufferedBytes,
                b -> b.sum() / (double) maxBytes);
        metrics.gauge(RuntimeMeter.BUFFER_USAGE, Tags.of("buffer", "lane"), lanes,
                l -> StatsLog.deepestDepth(l) / (double) laneCapacity);
        metrics.gauge(RuntimeMeter.BUFFER_USAGE, Tags.of("buffer", "delay_queue"), delays,
                d -> d.size() / (double) delayCapacity);
        metrics.gauge(RuntimeMeter.DELAY_QUEUE_SIZE, Tags.empty(), delays, DelayScheduler::size);
        metrics.gauge(RuntimeMeter.CALLS_RUNNING, Tags.empty(), calls, CallSlots::used);
        metrics.gauge(RuntimeMeter.BUFFERED_BYTES, Tags.empty(), bufferedBytes, LongAdder::sum);
        metrics.gauge(RuntimeMeter.PAUSED_PARTITIONS, Tags.empty(), this,
                e -> e.status(RuntimeState.RUNNING, 0).partitions().stream().filter(p -> p.paused()).count());
        this.timer = new TimerLoop(delays, lanes, clock, config.processingTimeout().toMillis());
        this.stats = new StatsLog(config.groupId(), lanes, laneCapacity, delays, delayCapacity, calls,
                config.maxCalls(), bufferedBytes, maxBytes, metrics, clock);
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
            supervisor.shutdownNow();
            metrics.close();
            throw e;
        }
        lanes.forEach(LaneLoop::start);
        timerThread = new Thread(timer, threadPrefix + "-timer");
        timerThread.setDaemon(true);
        timerThread.start();
        for (int i = 0; i < consumers.size(); i++) {
            startLoop(i, consumers.get(i));
        }
        long statsMillis = config.statsLogInterval().toMillis();
        if (statsMillis > 0) {
            supervisor.scheduleAtFixedRate(stats, statsMillis, statsMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void startLoop(int index, KafkaConsumer<K, V> consumer) {
        String name = threadPrefix + "-consumer-" + index;
        KafkaClientMetrics bound = new KafkaClientMetrics(consumer);
        bound.bindTo(registry);
        clientMetrics.add(bound);
        ConsumerLoop<K, V>[] self = newLoopHolder();
        ConsumerLoop<K, V> loop = new ConsumerLoop<>(name, consumer, config, stateManager, lanes, keyFunction,
                assigner, delays, metrics, clock, partitionListener, bufferedBytes,
                cause -> died(index, self[0], bound, cause));
        self[0] = loop;
        loops.add(loop);
        Thread t = new Thread(loop, name);
        loopThreads.add(t);
        t.start();
    }

    @SuppressWarnings("unchecked")
    private static <K, V> ConsumerLoop<K, V>[] newLoopHolder() {
        return (ConsumerLoop<K, V>[]) new ConsumerLoop<?, ?>[1];
    }

    /** The consumer thread of {@code index} died (its partitions released, its consumer closed): restart it. */
    private void died(int index, ConsumerLoop<K, V> loop, KafkaClientMetrics bound, Throwable cause) {
        loops.remove(loop);
        clientMetrics.remove(bound);
        bound.close();
        if (closing) {
            return;
        }
        scheduleRestart(index, cause);
    }

    private synchronized void scheduleRestart(int index, Throwable cause) {
        long now = clock.millis();
        if (now - lastRestartMillis[index] > RESTART_STREAK_RESET_MILLIS) {
            restartStreak[index] = 0;
        }
        if (restartStreak[index] >= config.consumerMaxRestarts()) {
            gaveUp = true;
            LOG.error("consumer thread {} of group {} failed {} times in a row; giving up: the runtime is not live",
                    index, config.groupId(), restartStreak[index]);
            onFatal.accept(cause);
            return;
        }
        long delay = config.consumerRestartBackoff().toMillis() << Math.min(5, restartStreak[index]);
        restartStreak[index]++;
        lastRestartMillis[index] = now + delay;
        LOG.warn("consumer thread {} of group {} died; starting it again in {} ms (restart {} of at most {})",
                index, config.groupId(), delay, restartStreak[index], config.consumerMaxRestarts(), cause);
        try {
            supervisor.schedule(() -> restart(index), delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    private synchronized void restart(int index) {
        if (closing) {
            return;
        }
        KafkaConsumer<K, V> consumer;
        try {
            consumer = new KafkaConsumer<>(consumerProperties(index), keys.get(), values.get());
        } catch (RuntimeException e) {
            scheduleRestart(index, e);
            return;
        }
        metrics.consumerRestarts.increment();
        startLoop(index, consumer);
    }

    /** Any thread: false once a consumer thread could not be restarted; the service's liveness check. */
    public boolean live() {
        return !gaveUp;
    }

    private Map<String, Object> consumerProperties(int index) {
        Map<String, Object> props = new HashMap<>(config.kafka());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        if (config.classicProtocol()) {
            // the consumer protocol (KIP-848) assigns on the broker, and the client refuses an assignor there
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        }
        config.groupInstanceId(index, RuntimeEngine::hostName)
                .ifPresent(id -> props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, id));
        Object clientId = props.get(ConsumerConfig.CLIENT_ID_CONFIG);
        if (clientId != null) {
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + index);
        }
        return props;
    }

    /** This host's name for a static member's id: {@code HOSTNAME} when set, else the resolver's name. */
    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            throw new ConsumerRuntimeException("groupInstanceId " + RuntimeConfig.HOST_NAME
                    + ": this host has no name (set HOSTNAME or an explicit groupInstanceId)", e);
        }
    }

    /**
     * Closes as {@code mode} says, finishing by {@code deadlineMillis} (consumers get a short grace to leave the
     * group). Returns whether every thread stopped.
     */
    public boolean close(CloseMode mode, long deadlineMillis) throws InterruptedException {
        synchronized (this) {
            closing = true;
        }
        supervisor.shutdownNow();
        supervisor.awaitTermination(1, TimeUnit.SECONDS);
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
        clientMetrics.forEach(KafkaClientMetrics::close);
        metrics.close();
        return stopped;
    }

    /** For a runtime closed before it started: removes the meters registered at construction. */
    public void discard() {
        supervisor.shutdownNow();
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
        return new RuntimeStatus(state, live() && state != RuntimeState.FAILED, partitions, laneStatus, parked,
                parkedCount, delays.size());
    }

    /** Installs the runtime's meter filters on {@code registry} (once per registry; idempotent). */
    public static void prepareMeters(MeterRegistry registry) {
        KafkaMeterNames.installOn(registry);
    }
}
