package io.changestream.alerts.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.Redaction;
import io.changestream.alerts.diagnostics.DiagnosticsRoutes;
import io.changestream.alerts.ledger.DeliveryLedger;
import io.changestream.alerts.pipeline.DeliverySummary;
import io.changestream.alerts.subscription.SubscriptionRoutes;
import io.changestream.runtime.RuntimeStatus;
import io.changestream.topics.serde.Json;
import io.changestream.web.Health;
import io.changestream.web.HealthEndpoints;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.OptionalLong;

/**
 * The alert service's HTTP server (Javalin 7 on Jetty, which owns its threads): the admin API
 * ({@link SubscriptionRoutes}, including {@code …/{id}/status}), {@code GET …/{id}/summary} (successful deliveries),
 * {@code GET /api/v1/runtime/status} (partitions, lanes, parked keys, ledger windows) — all behind the bearer token —
 * and, open, {@code /health/live}, {@code /health/ready} and {@code /metrics} (Prometheus text format). Every
 * error of every route goes through one mapper ({@link io.changestream.alerts.subscription.ApiErrors}).
 */
final class AlertHttpServer implements AutoCloseable {

    /** The runtime status path. */
    static final String RUNTIME_STATUS = "/api/v1/runtime/status";

    private final Javalin app;
    private final AlertService service;
    private final ObjectMapper mapper = Json.mapper();

    AlertHttpServer(AlertServiceConfig config, PrometheusMeterRegistry registry, AlertService service,
                    SubscriptionRoutes subscriptionRoutes, DiagnosticsRoutes diagnosticsRoutes,
                    io.changestream.alerts.replay.ReplayRoutes replayRoutes) {
        this.service = service;
        this.app = Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            c.startup.showOldJavalinVersionWarning = false;
            c.jetty.host = config.httpHost();
            c.jetty.port = config.httpPort();
            HealthEndpoints.install(c, () -> Health.of(service.live(), service::liveness),
                    () -> Health.of(service.ready(), service::readiness), registry);
            c.routes.get(RUNTIME_STATUS, subscriptionRoutes.guarded(this::runtimeStatus));
            c.routes.get(SubscriptionRoutes.BASE + "/{id}/summary", subscriptionRoutes.guarded(this::summary));
            c.routes.post(io.changestream.alerts.retry.RetryRoutes.RESUME,
                    subscriptionRoutes.guarded(service.retryRoutes().resume()));
            diagnosticsRoutes.register(c.routes, subscriptionRoutes::guarded); // before /{id}: /listAllFailedEvents
            replayRoutes.register(c.routes, subscriptionRoutes::guarded);
            subscriptionRoutes.install(c); // the body limit and the one error mapper of every route
        });
    }

    void start() {
        app.start();
    }

    int port() {
        return app.port();
    }

    private void summary(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        if (service.store().get(id).isEmpty()) {
            ctx.status(404).contentType("application/json")
                    .result("{\"code\":404,\"message\":\"subscription " + id.replace("\"", "") + " not found\"}");
            return;
        }
        DeliverySummary.View view = service.summary().of(id)
                .orElse(new DeliverySummary.View(id, 0, 0, null, 0));
        ctx.contentType("application/json").result(mapper.writeValueAsString(view));
    }

    private void runtimeStatus(Context ctx) throws Exception {
        ObjectNode out = mapper.createObjectNode();
        if (service.runtime() == null) {
            ctx.status(503).contentType("application/json").result("{\"state\":\"STARTING\"}");
            return;
        }
        RuntimeStatus status = service.runtime().status();
        out.put("state", status.state().name());
        out.put("queuedEvents", status.queuedEvents());
        out.put("delayQueueSize", status.delayQueueSize());
        out.put("parkedKeyCount", status.parkedKeyCount());
        out.put("eventsWithPendingDeliveries", service.processor().eventsInFlight());
        ArrayNode partitions = out.putArray("partitions");
        for (RuntimeStatus.PartitionStatus p : status.partitions()) {
            ObjectNode n = partitions.addObject();
            n.put("topic", p.topic()).put("partition", p.partition()).put("consumer", p.consumer());
            put(n, "committedOffset", p.committedOffset());
            put(n, "committable", p.committable());
            put(n, "oldestInFlight", p.oldestInFlight());
            p.oldestInFlightAge().ifPresent(age -> n.put("oldestInFlightAgeMs", age.toMillis()));
            n.put("inFlightCount", p.inFlightCount()).put("paused", p.paused());
            ArrayNode reasons = n.putArray("pauseReasons");
            p.pauseReasons().forEach(reasons::add);
            put(n, "consumerLag", p.consumerLag());
        }
        ArrayNode lanes = out.putArray("lanes");
        for (RuntimeStatus.LaneStatus l : status.lanes()) {
            lanes.addObject().put("lane", l.lane()).put("queueLength", l.queueLength())
                    .put("parkedKeys", l.parkedKeys());
        }
        ArrayNode parked = out.putArray("parkedKeys");
        for (RuntimeStatus.ParkedKey k : status.parkedKeys()) {
            parked.addObject().put("lane", k.lane()).put("key", k.key()).put("topic", k.topic())
                    .put("partition", k.partition()).put("offset", k.offset()).put("attempt", k.attempt())
                    .put("notBefore", k.notBefore().toString()).put("reason", Redaction.reason(k.reason()))
                    .put("waitingBehind", k.waitingBehind());
        }
        if (service.retry() != null) { // the retry path (decision 1120)
            RuntimeStatus retry = service.retry().runtimeStatus();
            ObjectNode r = out.putObject("retryPath").put("depth", service.retry().depth())
                    .put("queuedEvents", retry.queuedEvents()).put("parkedKeyCount", retry.parkedKeyCount());
            ArrayNode keys = r.putArray("parkedKeys");
            retry.parkedKeys().forEach(k -> keys.addObject().put("key", k.key()).put("partition", k.partition())
                    .put("offset", k.offset()).put("notBefore", k.notBefore().toString()).put("reason", Redaction.reason(k.reason()))
                    .put("waitingBehind", k.waitingBehind()));
        }
        ArrayNode windows = out.putArray("ledgerWindows");
        for (DeliveryLedger.WindowStatus w : service.ledger().windows()) {
            windows.add(mapper.valueToTree(w));
        }
        ctx.contentType("application/json").result(mapper.writeValueAsString(out));
    }

    private static void put(ObjectNode node, String field, OptionalLong value) {
        if (value.isPresent()) {
            node.put(field, value.getAsLong());
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
