package io.changestream.ops.subscriptions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.changestream.ops.OpsException;
import io.changestream.ops.UsageException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Manages subscriptions through the alert service's admin API ({@code /api/v1/events/subscriptions}, bearer token),
 * the same path the platform's clients use, so validation, unique names and secret masking stay in one place.
 * Called from one thread; every request is bounded by the timeout.
 */
public final class SubscriptionsClient {

    /** The admin API path. */
    public static final String PATH = "/api/v1/events/subscriptions";

    private final URI base;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * @param base    the alert service's base URL, e.g. {@code http://localhost:8591}
     * @param token   the admin bearer token
     * @param timeout bound on each request
     */
    public SubscriptionsClient(URI base, String token, Duration timeout) {
        this.base = Objects.requireNonNull(base, "base");
        this.token = Objects.requireNonNull(token, "token");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** What applying one file did. */
    public record Applied(String file, String name, String id, boolean created) {
    }

    /** One stored subscription, as listed. */
    public record Listed(String id, String name, String alertType, boolean enabled, int destinations) {
    }

    /** The JSON files of {@code fileOrDir} (a file, or the {@code *.json} files of a directory, sorted). */
    public static List<Path> files(Path fileOrDir) {
        if (Files.isRegularFile(fileOrDir)) {
            return List.of(fileOrDir);
        }
        if (!Files.isDirectory(fileOrDir)) {
            throw new UsageException(fileOrDir + " is neither a file nor a directory");
        }
        try (Stream<Path> s = Files.list(fileOrDir)) {
            List<Path> files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
            if (files.isEmpty()) {
                throw new UsageException("no *.json files in " + fileOrDir);
            }
            return files;
        } catch (IOException e) {
            throw new UsageException("cannot list " + fileOrDir + ": " + e.getMessage());
        }
    }

    /** Creates or updates the subscription of each file (the platform's CreateEventSubscription JSON), in order. */
    public List<Applied> apply(List<Path> files) {
        List<Applied> out = new ArrayList<>();
        for (Path file : files) {
            String body;
            try {
                body = Files.readString(file);
                mapper.readTree(body);
            } catch (IOException e) {
                throw new UsageException(file + " is not readable JSON: " + e.getMessage());
            }
            HttpResponse<String> r = send(HttpRequest.newBuilder(base.resolve(PATH))
                    .PUT(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json"));
            if (r.statusCode() != 200 && r.statusCode() != 201) {
                throw new OpsException(file + ": the alert service answered " + r.statusCode() + " " + r.body());
            }
            JsonNode saved = json(r.body());
            out.add(new Applied(file.toString(), saved.path("name").asText(), saved.path("id").asText(),
                    r.statusCode() == 201));
        }
        return out;
    }

    /** Every stored subscription, page after page (the service's pages are at most {@code quota.listLimit}). */
    public List<Listed> list() {
        List<Listed> out = new ArrayList<>();
        String after = null;
        do {
            HttpResponse<String> r = send(HttpRequest.newBuilder(base.resolve(after == null ? PATH
                    : PATH + "?after=" + encode(after))).GET());
            if (r.statusCode() != 200) {
                throw new OpsException("the alert service answered " + r.statusCode() + " " + r.body());
            }
            JsonNode page = json(r.body());
            for (JsonNode s : page.path("data")) {
                out.add(new Listed(s.path("id").asText(), s.path("name").asText(), s.path("alertType").asText(),
                        s.path("enabled").asBoolean(true), s.path("destinations").size()));
            }
            after = page.path("paging").path("after").asText(null);
        } while (after != null);
        return out;
    }

    /**
     * Resumes a subscription's destinations (all, or the one with id {@code destinationId}) through
     * {@code POST …/{id}/resume}: suspended ones are delivered to again and their parked pairs go out in order.
     *
     * @param idOrName the subscription's id or name
     * @return the ids of the destinations resumed
     */
    public List<String> resume(String idOrName, String destinationId) {
        String id = idOrName;
        HttpResponse<String> found = send(HttpRequest.newBuilder(base.resolve(PATH + "/" + encode(idOrName))).GET());
        if (found.statusCode() == 404) {
            found = send(HttpRequest.newBuilder(base.resolve(PATH + "/name/" + encode(idOrName))).GET());
        }
        if (found.statusCode() != 200) {
            throw new OpsException("subscription " + idOrName + ": the alert service answered " + found.statusCode()
                    + " " + found.body());
        }
        id = json(found.body()).path("id").asText(id);
        String query = destinationId == null ? "" : "?destination=" + encode(destinationId);
        HttpResponse<String> r = send(HttpRequest.newBuilder(base.resolve(PATH + "/" + encode(id) + "/resume" + query))
                .POST(HttpRequest.BodyPublishers.noBody()));
        if (r.statusCode() != 200) {
            throw new OpsException("the alert service answered " + r.statusCode() + " " + r.body());
        }
        List<String> out = new ArrayList<>();
        json(r.body()).path("resumed").forEach(d -> out.add(d.asText()));
        return out;
    }

    private static String encode(String segment) {
        return java.net.URLEncoder.encode(segment, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(timeout).header("Authorization", "Bearer " + token)
                    .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new OpsException("cannot reach the alert service at " + base + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OpsException("interrupted while calling the alert service", e);
        }
    }

    private JsonNode json(String body) {
        try {
            return mapper.readTree(body);
        } catch (IOException e) {
            throw new OpsException("the alert service answered with something that is not JSON: " + body, e);
        }
    }
}
