package io.changestream.alerts.impact;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.changestream.alerts.platform.PlatformSettings;
import io.changestream.alerts.platform.PlatformUnavailableException;
import io.changestream.alerts.filter.EntityTags;
import io.changestream.topics.model.PipelineRunStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Resolves the failure impact of a pipeline run from the platform's API (decision 2801 says what "downstream" is per
 * kind of pipeline):
 * <ol>
 *   <li>the ingestion pipeline: {@code GET /api/v1/services/ingestionPipelines/name/{fqn}?fields=owners,tags} (its
 *       {@code pipelineType}, {@code service}, {@code sourceConfig}, tags);</li>
 *   <li>its outputs (depth 0, at most {@code impact.maxOutputs}): the assets of its service for the kinds that write
 *       a service's metadata ({@code GET /api/v1/databases?service=…} then {@code /api/v1/tables?database=…}, or
 *       {@code /api/v1/dashboards|topics|pipelines|mlmodels|containers|searchIndexes?service=…}), the table under
 *       test for a test suite;</li>
 *   <li>below each output: {@code GET /api/v1/lineage/{entityType}/name/{fqn}?upstreamDepth=0&downstreamDepth=n},
 *       the nodes reached over its {@code downstreamEdges}, nearest first, at most {@code impact.maxNodes};</li>
 *   <li>each downstream asset's owners and tags: {@code GET /api/v1/{entities}/name/{fqn}?fields=owners,tags}.</li>
 * </ol>
 * Each request to the platform is bounded by {@code destinations.platform.timeout}. Each pipeline's impact is fetched once at a time (concurrent callers share the request in flight) and kept for
 * {@code impact.cacheTtl}; a failed fetch is not kept. A caller waits at most {@code impact.timeout}: then it gets
 * {@link Impact.Status#UNAVAILABLE} with the reason, and the fetch goes on to fill the cache. Thread-safe; delivery
 * threads call it.
 */
public final class ImpactResolver implements EntityTags {

    /** The entity type of ingestion pipelines (the run statuses' entities). */
    public static final String INGESTION_PIPELINE = "ingestionPipeline";

    private static final Map<String, String> COLLECTIONS = Map.ofEntries(
            Map.entry("table", "tables"), Map.entry("dashboard", "dashboards"), Map.entry("topic", "topics"),
            Map.entry("pipeline", "pipelines"), Map.entry("mlmodel", "mlmodels"),
            Map.entry("container", "containers"), Map.entry("searchIndex", "searchIndexes"),
            Map.entry("dashboardDataModel", "dashboard/datamodels"), Map.entry("chart", "charts"),
            Map.entry("storedProcedure", "storedProcedures"), Map.entry("apiEndpoint", "apiEndpoints"),
            Map.entry("metric", "metrics"), Map.entry("database", "databases"),
            Map.entry("databaseSchema", "databaseSchemas"));
    /** The entity type a service type holds (databases: their tables, two levels). */
    private static final Map<String, String> SERVICE_ASSETS = Map.of("databaseService", "table",
            "dashboardService", "dashboard", "messagingService", "topic", "pipelineService", "pipeline",
            "mlmodelService", "mlmodel", "storageService", "container", "searchService", "searchIndex");
    /** Pipeline types that write the metadata of their service's assets. */
    private static final Set<String> SERVICE_WIDE = Set.of("metadata", "dbt", "lineage", "usage", "profiler",
            "autoClassification");

    private final ImpactSettings settings;
    private final PlatformApi api;
    private final AsyncCache<String, Optional<JsonNode>> pipelines;
    private final AsyncCache<String, Impact> impacts;

    public ImpactResolver(ImpactSettings settings, PlatformSettings platform, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.api = new PlatformApi(platform, platform.timeout());
        Objects.requireNonNull(clock, "clock");
        this.pipelines = cache(settings, clock);
        this.impacts = cache(settings, clock);
    }

    private static <V> AsyncCache<String, V> cache(ImpactSettings settings, Clock clock) {
        return Caffeine.newBuilder().maximumSize(settings.cacheMaxEntries()).expireAfterWrite(settings.cacheTtl())
                .ticker(() -> {
                    java.time.Instant now = clock.instant();
                    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                })
                .buildAsync();
    }

    /** The settings. */
    public ImpactSettings settings() {
        return settings;
    }

    /**
     * The impact of a run: {@link Impact.Status#NOT_APPLICABLE} for a state outside {@code impact.states}, else the
     * pipeline's impact within {@code impact.timeout}. Blocks for at most that.
     */
    public Impact resolve(PipelineRunStatus status) {
        return resolveAsync(status).join();
    }

    /**
     * {@link #resolve} without blocking: the stage completes within {@code impact.timeout} (with
     * {@link Impact.Status#UNAVAILABLE} when the platform has not answered by then), never exceptionally.
     */
    public CompletableFuture<Impact> resolveAsync(PipelineRunStatus status) {
        if (!settings.states().contains(status.state())) {
            return CompletableFuture.completedFuture(Impact.notApplicable("a run that ends "
                    + status.state().name().toLowerCase(java.util.Locale.ROOT) + " hurts nothing downstream", null));
        }
        return ofAsync(status.pipelineFqn());
    }

    /** The impact of a pipeline (its outputs and what is downstream of them) within {@code impact.timeout}. */
    public Impact of(String pipelineFqn) {
        return ofAsync(pipelineFqn).join();
    }

    /** {@link #of} without blocking; completes within {@code impact.timeout}, never exceptionally. */
    public CompletableFuture<Impact> ofAsync(String pipelineFqn) {
        long start = System.nanoTime();
        return impacts.get(pipelineFqn, (fqn, executor) -> fetch(fqn)).copy()
                .handle((impact, error) -> error == null ? impact : Impact.unavailable(reason(error), elapsed(start)))
                .completeOnTimeout(Impact.unavailable("the platform's lineage did not answer within "
                        + settings.timeout().toMillis() + " ms", settings.timeout().toMillis()),
                        settings.timeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    private static String reason(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof java.util.concurrent.CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof PlatformUnavailableException ? cause.getMessage() : "impact lookup failed: " + cause;
    }

    /**
     * The tags of an ingestion pipeline within {@code impact.tagLookupTimeout} (cached like its impact); empty when
     * the platform does not answer in time. An unknown pipeline has no tags. Other entity types: empty.
     */
    @Override
    public Optional<List<String>> tags(String entityType, String fqn) {
        if (!INGESTION_PIPELINE.equals(entityType) || fqn == null) {
            return Optional.empty();
        }
        try {
            Optional<JsonNode> pipeline = pipeline(fqn).get(settings.tagLookupTimeout().toNanos(),
                    TimeUnit.NANOSECONDS);
            return Optional.of(pipeline.map(ImpactResolver::tagsOf).orElse(List.of()));
        } catch (TimeoutException | ExecutionException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private CompletableFuture<Optional<JsonNode>> pipeline(String fqn) {
        return pipelines.get(fqn, (k, executor) -> api.get("/api/v1/services/ingestionPipelines/name/"
                + PlatformApi.encode(k) + "?fields=owners,tags").thenApply(Optional::ofNullable));
    }

    private CompletableFuture<Impact> fetch(String fqn) {
        long start = System.nanoTime();
        return pipeline(fqn).thenCompose(found -> {
            if (found.isEmpty()) {
                return CompletableFuture.completedFuture(Impact.notApplicable("the platform knows no ingestion "
                        + "pipeline " + fqn, null));
            }
            JsonNode pipeline = found.get();
            String type = text(pipeline, "pipelineType");
            return outputs(pipeline, type).thenCompose(outputs -> {
                if (outputs == null) {
                    return CompletableFuture.completedFuture(Impact.notApplicable("a " + type
                            + " pipeline writes no data assets", type));
                }
                return downstream(outputs.assets()).thenApply(down -> new Impact(Impact.Status.RESOLVED, null,
                        type, outputs.assets(), down.assets(), outputs.total() + down.total(),
                        outputs.truncated() || down.truncated(), elapsed(start)));
            });
        });
    }

    /** Some assets of a longer list: the kept ones, how many there are, whether a bound cut it. */
    private record Found(List<Impact.Asset> assets, int total, boolean truncated) {
    }

    /** The assets a pipeline writes; null when its kind writes none. */
    private CompletableFuture<Found> outputs(JsonNode pipeline, String type) {
        if ("TestSuite".equalsIgnoreCase(type) || "testSuite".equals(type)) {
            String table = text(pipeline.path("sourceConfig").path("config"), "entityFullyQualifiedName");
            if (table == null) {
                return CompletableFuture.completedFuture(null);
            }
            return details("table", table, 0, null).thenApply(a -> new Found(List.of(a), 1, false));
        }
        if (type != null && !SERVICE_WIDE.contains(type)) {
            return CompletableFuture.completedFuture(null);
        }
        JsonNode service = pipeline.path("service");
        String serviceName = text(service, "name") != null ? text(service, "name") : text(service,
                "fullyQualifiedName");
        String assetType = SERVICE_ASSETS.get(text(service, "type"));
        if (serviceName == null || assetType == null) {
            return CompletableFuture.completedFuture(null);
        }
        int max = settings.maxOutputs();
        if (!"table".equals(assetType)) {
            return list(COLLECTIONS.get(assetType) + "?service=" + PlatformApi.encode(serviceName), assetType, max);
        }
        return api.get("/api/v1/databases?service=" + PlatformApi.encode(serviceName) + "&limit=" + max)
                .thenCompose(databases -> {
                    List<CompletableFuture<Found>> perDatabase = new ArrayList<>();
                    boolean more = databases != null && databases.path("paging").path("after").isTextual();
                    if (databases != null) {
                        for (JsonNode db : databases.path("data")) {
                            String dbFqn = text(db, "fullyQualifiedName");
                            if (dbFqn != null) {
                                perDatabase.add(list("tables?database=" + PlatformApi.encode(dbFqn), "table", max));
                            }
                        }
                    }
                    return CompletableFuture.allOf(perDatabase.toArray(CompletableFuture[]::new)).thenApply(v -> {
                        List<Impact.Asset> all = new ArrayList<>();
                        int total = 0;
                        boolean truncated = more;
                        for (CompletableFuture<Found> f : perDatabase) {
                            Found found = f.join();
                            all.addAll(found.assets());
                            total += found.total();
                            truncated |= found.truncated();
                        }
                        truncated |= all.size() > max;
                        return new Found(all.subList(0, Math.min(max, all.size())), total, truncated);
                    });
                });
    }

    private CompletableFuture<Found> list(String collectionAndQuery, String assetType, int max) {
        return api.get("/api/v1/" + collectionAndQuery + "&limit=" + max + "&fields=owners,tags").thenApply(page -> {
            List<Impact.Asset> out = new ArrayList<>();
            if (page == null) {
                return new Found(out, 0, false);
            }
            for (JsonNode e : page.path("data")) {
                Impact.Asset a = asset(e, assetType, 0);
                if (a != null) {
                    out.add(a);
                }
            }
            int total = page.path("paging").path("total").asInt(out.size());
            return new Found(out, Math.max(total, out.size()), page.path("paging").path("after").isTextual());
        });
    }

    /** Every asset below the outputs, nearest first, with owners and tags; the outputs themselves left out. */
    private CompletableFuture<Found> downstream(List<Impact.Asset> outputs) {
        List<CompletableFuture<JsonNode>> graphs = new ArrayList<>();
        for (Impact.Asset out : outputs) {
            graphs.add(api.get("/api/v1/lineage/" + PlatformApi.encode(out.type()) + "/name/"
                    + PlatformApi.encode(out.fqn()) + "?upstreamDepth=0&downstreamDepth="
                    + settings.downstreamDepth()));
        }
        return CompletableFuture.allOf(graphs.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            Set<String> outputKeys = new HashSet<>();
            outputs.forEach(o -> outputKeys.add(o.type() + ":" + o.fqn()));
            Map<String, Impact.Asset> reached = new LinkedHashMap<>();
            for (CompletableFuture<JsonNode> g : graphs) {
                JsonNode graph = g.join();
                if (graph != null) {
                    below(graph).forEach(a -> {
                        String key = a.type() + ":" + a.fqn();
                        if (!outputKeys.contains(key)) {
                            reached.merge(key, a, (x, y) -> x.depth() <= y.depth() ? x : y);
                        }
                    });
                }
            }
            List<Impact.Asset> sorted = new ArrayList<>(reached.values());
            sorted.sort(Comparator.comparingInt(Impact.Asset::depth).thenComparing(Impact.Asset::fqn));
            int total = sorted.size();
            List<Impact.Asset> kept = sorted.subList(0, Math.min(settings.maxNodes(), total));
            List<CompletableFuture<Impact.Asset>> detailed = new ArrayList<>();
            for (Impact.Asset a : kept) {
                detailed.add(details(a.type(), a.fqn(), a.depth(), a));
            }
            return CompletableFuture.allOf(detailed.toArray(CompletableFuture[]::new)).thenApply(w ->
                    new Found(detailed.stream().map(CompletableFuture::join).toList(), total,
                            total > kept.size()));
        });
    }

    /** The nodes of one lineage answer reached from its entity over {@code downstreamEdges}, with their depth. */
    static List<Impact.Asset> below(JsonNode graph) {
        String root = text(graph.path("entity"), "id");
        Map<String, JsonNode> nodes = new HashMap<>();
        for (JsonNode n : graph.path("nodes")) {
            if (text(n, "id") != null) {
                nodes.put(text(n, "id"), n);
            }
        }
        Map<String, List<String>> edges = new HashMap<>();
        for (JsonNode e : graph.path("downstreamEdges")) {
            String from = text(e, "fromEntity");
            String to = text(e, "toEntity");
            if (from != null && to != null) {
                edges.computeIfAbsent(from, k -> new ArrayList<>()).add(to);
            }
        }
        Map<String, Integer> depth = new LinkedHashMap<>();
        List<String> frontier = root == null ? List.of() : List.of(root);
        for (int d = 1; !frontier.isEmpty(); d++) {
            List<String> next = new ArrayList<>();
            for (String id : frontier) {
                for (String to : edges.getOrDefault(id, List.of())) {
                    if (!to.equals(root) && !depth.containsKey(to)) {
                        depth.put(to, d);
                        next.add(to);
                    }
                }
            }
            frontier = next;
        }
        List<Impact.Asset> out = new ArrayList<>();
        depth.forEach((id, d) -> {
            JsonNode n = nodes.get(id);
            if (n != null && text(n, "type") != null && text(n, "fullyQualifiedName") != null) {
                out.add(new Impact.Asset(id, text(n, "type"), text(n, "fullyQualifiedName"), d, List.of(),
                        List.of()));
            }
        });
        return out;
    }

    /** An asset with its owners and tags from its entity API; without them when the platform has no such entity. */
    private CompletableFuture<Impact.Asset> details(String type, String fqn, int depth, Impact.Asset fallback) {
        String collection = COLLECTIONS.get(type);
        Impact.Asset bare = fallback != null ? fallback : new Impact.Asset(null, type, fqn, depth, List.of(),
                List.of());
        if (collection == null) {
            return CompletableFuture.completedFuture(bare);
        }
        return api.get("/api/v1/" + collection + "/name/" + PlatformApi.encode(fqn) + "?fields=owners,tags")
                .thenApply(entity -> {
                    Impact.Asset a = entity == null ? null : asset(entity, type, depth);
                    return a == null ? bare : a;
                });
    }

    private static Impact.Asset asset(JsonNode entity, String type, int depth) {
        String fqn = text(entity, "fullyQualifiedName");
        if (fqn == null) {
            return null;
        }
        List<Impact.Owner> owners = new ArrayList<>();
        JsonNode list = entity.path("owners");
        List<JsonNode> refs = new ArrayList<>();
        if (list.isArray()) {
            list.forEach(refs::add);
        } else if (entity.path("owner").isObject()) {
            refs.add(entity.get("owner"));
        }
        for (JsonNode ref : refs) {
            String name = text(ref, "name") != null ? text(ref, "name") : text(ref, "displayName");
            if (name != null || text(ref, "id") != null) {
                owners.add(new Impact.Owner(text(ref, "id"), ref.path("type").asText("user"), name));
            }
        }
        return new Impact.Asset(text(entity, "id"), type, fqn, depth, owners, tagsOf(entity));
    }

    private static List<String> tagsOf(JsonNode entity) {
        List<String> tags = new ArrayList<>();
        for (JsonNode tag : entity.path("tags")) {
            String fqn = text(tag, "tagFQN");
            if (fqn != null) {
                tags.add(fqn);
            }
        }
        return tags;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node == null ? null : node.get(field);
        return value == null || !value.isValueNode() || value.isNull() || value.asText().isBlank() ? null
                : value.asText();
    }

    private static long elapsed(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }
}
