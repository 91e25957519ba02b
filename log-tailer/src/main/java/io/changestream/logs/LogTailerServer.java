package io.changestream.logs;

import io.changestream.logs.engine.ChunkPublisher;
import io.changestream.logs.engine.LogMetrics;
import io.changestream.logs.engine.Replayer;
import io.changestream.logs.engine.RunStateView;
import io.changestream.logs.engine.TailerManager;
import io.changestream.logs.engine.Ticker;
import io.changestream.logs.http.LogsApiServlet;
import io.changestream.logs.http.PipelineRegistry;
import io.changestream.logs.kafka.KafkaChunkPublisher;
import io.changestream.logs.kafka.KafkaReplayer;
import io.changestream.logs.kafka.KafkaViews;
import io.changestream.logs.limits.CallerQuotas;
import io.changestream.logs.source.ChangeWatch;
import io.changestream.logs.source.SourceResolver;
import io.changestream.logs.source.StorageWatcher;
import io.changestream.topics.TopicCatalog;
import io.changestream.web.BearerTokens;
import io.changestream.web.Health;
import io.changestream.web.HealthEndpoints;
import io.javalin.Javalin;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running service: wires the config into the Kafka views, publisher and replayer (when Kafka is configured), the
 * {@link TailerManager}, the log endpoints and Javalin's {@code /health/live}, {@code /health/ready},
 * {@code /metrics} and {@code /ui/logs.html}. Built and closed by one thread; {@link #close()} is idempotent and
 * closes each part separately.
 */
public final class LogTailerServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LogTailerServer.class);
    private static final Duration VIEWS_READY_TIMEOUT = Duration.ofSeconds(60);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final TailerManager manager;
    private final PrometheusMeterRegistry registry;
    private final KafkaViews views;
    private final Javalin app;
    private boolean closed;

    private LogTailerServer(LogTailerConfig config) {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        LogMetrics metrics = new LogMetrics(registry);
        TopicCatalog catalog = new TopicCatalog(config.kafkaNamespace());
        RunStateView states = RunStateView.NONE;
        ChunkPublisher publisher = ChunkPublisher.NONE;
        Replayer replayer = Replayer.NONE;
        if (config.kafkaEnabled()) {
            views = new KafkaViews(config.kafkaClientProperties(), catalog, config.kafkaStateDir(), config.instanceId());
            closeables.add(views);
            try {
                views.start();
            } catch (RuntimeException e) {
                registry.close();
                throw e;
            }
            KafkaChunkPublisher kafkaPublisher = new KafkaChunkPublisher(config.kafkaClientProperties(), catalog,
                    config.producerMaxBlock(), metrics);
            closeables.add(0, kafkaPublisher);
            KafkaReplayer kafkaReplayer = new KafkaReplayer(config.kafkaClientProperties(), catalog, views,
                    config.replayIndexWait());
            closeables.add(0, kafkaReplayer);
            states = views;
            publisher = kafkaPublisher;
            replayer = kafkaReplayer;
        } else {
            views = null;
        }
        ThreadPoolExecutor replays = new ThreadPoolExecutor(config.replayThreads(), config.replayThreads(), 30,
                TimeUnit.SECONDS, new ArrayBlockingQueue<>(config.replayQueue()), named("log-tailer-replay"));
        closeables.add(0, replays::shutdownNow);
        ChangeWatch changes = ChangeWatch.NONE;
        if (config.storageRoot() != null && config.watchStorage()) {
            StorageWatcher watcher = watcher();
            if (watcher != null) {
                closeables.add(0, watcher);
                changes = watcher;
            }
        }
        manager = new TailerManager(config.stream(), Ticker.SYSTEM, states, publisher, replayer, replays, changes,
                metrics);
        closeables.add(0, manager);
        SourceResolver sources = new SourceResolver(config.storageRoot(), config.objectStore(), config.airflow(),
                config.s3Limits(), config.airflowLimits());
        closeables.add(sources);
        PipelineRegistry pipelines = new PipelineRegistry(config.pipelineIds(), config.knownPipelines(), sources,
                states);
        LogsApiServlet api = new LogsApiServlet(new BearerTokens(config.authTokens()), pipelines, sources, manager,
                new CallerQuotas(config.callerLimits()));
        byte[] page = resource("/ui/logs.html");
        app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.threadPool = new QueuedThreadPool(config.maxThreads(), 8);
            cfg.jetty.addConnector((server, http) -> {
                ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
                connector.setHost(config.httpHost());
                connector.setPort(config.httpPort());
                connector.setAcceptQueueSize(config.acceptQueue());
                connector.setIdleTimeout(config.idleTimeout().toMillis());
                return connector;
            });
            cfg.jetty.modifyServletContextHandler(handler -> {
                ServletHolder holder = new ServletHolder(api);
                holder.setAsyncSupported(true);
                handler.addServlet(holder, LogsApiServlet.PATH + "/*");
            });
            HealthEndpoints.install(cfg, () -> Health.UP, () -> Health.of(views == null || views.ready(),
                    () -> "the run-state views are restoring from Kafka"), registry);
            cfg.routes.get("/ui/logs.html", ctx -> ctx.contentType("text/html; charset=utf-8").result(page));
        });
        closeables.add(0, app::stop);
    }

    /** Builds and starts the service; with Kafka, waits until the views are restored. */
    public static LogTailerServer start(LogTailerConfig config) {
        LogTailerServer server = new LogTailerServer(config);
        try {
            if (server.views != null) {
                server.views.awaitReady(VIEWS_READY_TIMEOUT);
            }
            server.app.start();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        LOG.info("log-tailer listening on port {}", server.port());
        return server;
    }

    /** The HTTP port actually bound. */
    public int port() {
        return ((ServerConnector) app.jettyServer().server().getConnectors()[0]).getLocalPort();
    }

    /** The engine. */
    public TailerManager manager() {
        return manager;
    }

    /** The Prometheus registry behind {@code /metrics}. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed: {}", c, e.toString());
            }
        }
        registry.close();
    }

    private static StorageWatcher watcher() {
        try {
            return new StorageWatcher();
        } catch (IOException e) {
            LOG.warn("cannot watch the storage root ({}); tailers poll only", e.toString());
            return null;
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = LogTailerServer.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static java.util.concurrent.ThreadFactory named(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
