package io.changestream.alerts.subscription;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one error mapper of the alert service's HTTP API: every failure becomes the platform's
 * {@code {"code": …, "message": …}}. A {@link SubscriptionException} answers its own status (400 naming the field,
 * 404, 409, 413, 503); Javalin's own refusals keep their status, a body over {@code admin.maxRequestBytes} is a 413
 * naming that setting; only a failure of the service itself is a 500 ("internal error", logged once with the
 * route). Installed on the whole app, so the routes of {@link SubscriptionRoutes} and the service's other routes
 * share it. Runs on Javalin's request threads.
 */
public final class ApiErrors {

    private static final Logger LOG = LoggerFactory.getLogger(ApiErrors.class);

    private ApiErrors() {
    }

    /** Sets the body limit and registers the mapper on a Javalin 7 config. */
    public static void install(JavalinConfig config, AdminApiSettings settings) {
        long limit = settings.maxRequestBytes();
        config.http.maxRequestSize = limit;
        config.routes.exception(SubscriptionException.class, (e, ctx) -> write(ctx, e.status(), e.getMessage()));
        config.routes.exception(HttpResponseException.class, (e, ctx) -> {
            if (e.getStatus() == HttpStatus.CONTENT_TOO_LARGE.getCode()) {
                write(ctx, 413, "body: larger than " + limit + " bytes (admin.maxRequestBytes)");
            } else {
                write(ctx, e.getStatus(), e.getMessage());
            }
        });
        config.routes.exception(Exception.class, (e, ctx) -> {
            LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
            write(ctx, 500, "internal error");
        });
    }

    /** Writes the platform's error body. */
    static void write(Context ctx, int status, String message) {
        ObjectNode body = JsonNodeFactory.instance.objectNode().put("code", status).put("message", message);
        ctx.status(status).contentType("application/json").result(body.toString());
    }
}
