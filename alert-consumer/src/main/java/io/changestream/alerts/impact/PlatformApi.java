package io.changestream.alerts.impact;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.platform.PlatformDirectory;
import io.changestream.alerts.platform.PlatformSettings;
import io.changestream.alerts.platform.PlatformUnavailableException;
import io.changestream.runtime.Stages;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The platform's REST API as the impact resolver reads it, asynchronously: one GET returns the JSON, null on 404, and
 * fails with {@link PlatformUnavailableException} on anything else (another status, a timeout, a refused
 * connection, unreadable JSON). Sends {@code destinations.platform.bearerToken}. Thread-safe.
 */
final class PlatformApi {

    private final PlatformSettings settings;
    private final Duration timeout;
    private final HttpClient client;

    PlatformApi(PlatformSettings settings, Duration timeout) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** GET of a path (with its query) below the platform's URL. */
    CompletableFuture<JsonNode> get(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + path)).timeout(timeout)
                .header("Accept", "application/json").GET();
        if (settings.bearerToken() != null) {
            request.header("Authorization", "Bearer " + settings.bearerToken());
        }
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString()).handle((response, error) -> {
            if (error != null) {
                Throwable cause = Stages.unwrap(error);
                throw new PlatformUnavailableException("platform API unreachable at " + settings.url() + " for "
                        + PlatformDirectory.pathOnly(path) + ": " + cause.getClass().getSimpleName());
            }
            return PlatformDirectory.answer(response, path);
        });
    }

    /** A path segment or query value, encoded. */
    static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private String base() {
        String url = settings.url().toString();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
