package io.changestream.alerts.platform;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.changestream.topics.serde.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The platform's users and teams as far as e-mail receivers need them, read through its REST API and cached
 * (Caffeine: {@link PlatformSettings#cacheTtl()} after write, at most {@link PlatformSettings#cacheMaxEntries()}):
 * {@code GET /api/v1/users/{id}}, {@code /api/v1/users/name/{name}}, {@code /api/v1/teams/{id}},
 * {@code /api/v1/teams/name/{name}} (their {@code email}; 404 = no such user or team, cached as none) and
 * {@code GET /api/v1/users?isAdmin=true&limit=50&after=…} (pages of {@code {"data": [...], "paging": {"after"}}}).
 * Any other failure throws {@link PlatformUnavailableException} and caches nothing. Thread-safe; lane threads call
 * it and block for at most the timeout per call.
 */
public final class PlatformDirectory {

    private static final int ADMIN_PAGE = 50;

    private final PlatformSettings settings;
    private final HttpClient client;
    private final Cache<String, List<String>> cache;

    public PlatformDirectory(PlatformSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(clock, "clock");
        this.client = HttpClient.newBuilder().connectTimeout(settings.timeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        this.cache = Caffeine.newBuilder().maximumSize(settings.cacheMaxEntries())
                .expireAfterWrite(settings.cacheTtl())
                .ticker(() -> {
                    java.time.Instant now = clock.instant();
                    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                })
                .build();
    }

    /** The e-mail of a user by id, or none (no such user, or no e-mail). */
    public List<String> userById(String id) {
        return cache.get("user/" + id, k -> email("/api/v1/users/" + encode(id)));
    }

    /** The e-mail of a user by name, or none. */
    public List<String> userByName(String name) {
        return cache.get("user/name/" + name, k -> email("/api/v1/users/name/" + encode(name)));
    }

    /** The e-mail of a team by id (the team's own address, as the platform sends to it), or none. */
    public List<String> teamById(String id) {
        return cache.get("team/" + id, k -> email("/api/v1/teams/" + encode(id)));
    }

    /** The e-mail of a team by name, or none. */
    public List<String> teamByName(String name) {
        return cache.get("team/name/" + name, k -> email("/api/v1/teams/name/" + encode(name)));
    }

    /** The e-mails of every admin user. */
    public List<String> admins() {
        return cache.get("admins", k -> {
            List<String> out = new ArrayList<>();
            String after = null;
            for (int page = 0; page < settings.maxAdminPages(); page++) {
                JsonNode list = get("/api/v1/users?isAdmin=true&limit=" + ADMIN_PAGE
                        + (after == null ? "" : "&after=" + encode(after)));
                if (list == null) {
                    break;
                }
                list.path("data").forEach(user -> {
                    if (user.path("email").isTextual()) {
                        out.add(user.get("email").asText());
                    }
                });
                JsonNode next = list.path("paging").path("after");
                if (!next.isTextual() || next.asText().isBlank()) {
                    break;
                }
                after = next.asText();
            }
            return List.copyOf(out);
        });
    }

    /** Entries cached now (tests, status). */
    public long cached() {
        cache.cleanUp();
        return cache.estimatedSize();
    }

    private List<String> email(String path) {
        JsonNode entity = get(path);
        return entity != null && entity.path("email").isTextual() && !entity.get("email").asText().isBlank()
                ? List.of(entity.get("email").asText()) : List.of();
    }

    /** The JSON at a path; null on 404. */
    private JsonNode get(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + path)).timeout(settings.timeout())
                .header("Accept", "application/json").GET();
        if (settings.bearerToken() != null) {
            request.header("Authorization", "Bearer " + settings.bearerToken());
        }
        HttpResponse<String> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new PlatformUnavailableException("platform API unreachable at " + settings.url() + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PlatformUnavailableException("interrupted while calling the platform API");
        }
        return answer(response, path);
    }

    /**
     * The JSON of a platform answer to a GET of {@code path}: null on 404.
     *
     * @throws PlatformUnavailableException for any other status than 200 or unreadable JSON (the path without its
     *                                      query in the message)
     */
    public static JsonNode answer(HttpResponse<String> response, String path) {
        int status = response.statusCode();
        if (status == 404) {
            return null;
        }
        if (status != 200) {
            throw new PlatformUnavailableException("platform API answered " + status + " for " + pathOnly(path)
                    + (status == 401 || status == 403 ? " (check destinations.platform.bearerToken)" : ""));
        }
        try {
            return Json.mapper().readTree(response.body());
        } catch (IOException e) {
            throw new PlatformUnavailableException("platform API answered unreadable JSON for " + pathOnly(path));
        }
    }

    private String base() {
        String url = settings.url().toString();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** A path without its query. */
    public static String pathOnly(String path) {
        int q = path.indexOf('?');
        return q < 0 ? path : path.substring(0, q);
    }

    private static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
