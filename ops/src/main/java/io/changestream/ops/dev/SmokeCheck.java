package io.changestream.ops.dev;

import io.changestream.ops.kafka.AdminCalls;
import io.changestream.topics.TopicCatalog;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The bounded checks of {@code dev --smoke}: change events were captured into the {@code changes} topic, the demo
 * subscription's alerts arrived at the demo webhook sink, finished demo runs reached it as OpenLineage events, and a
 * demo pipeline run's log stream, read over SSE from the start, ends with a {@code complete} event (e-mail is not
 * checked: the dev stack has no SMTP server), the ledger has the partitions the source topics need; every service's {@code /metrics} answers with HELP text for every
 * family (each scrape is kept in {@code <data-dir>/smoke/}). Run by the launching
 * thread; the SSE read happens on one helper thread so the whole check stays within its deadline.
 */
public final class SmokeCheck {

    /** What the smoke run found. */
    public record Result(boolean ok, String summary) {
    }

    private final DevStack stack;
    private final String token;
    private final Duration timeout;

    /**
     * @param stack   the running stack
     * @param token   bearer token of the log API
     * @param timeout bound on all checks together
     */
    public SmokeCheck(DevStack stack, String token, Duration timeout) {
        this.stack = stack;
        this.token = token;
        this.timeout = timeout;
    }

    /** Runs the checks; never throws for a failed check (the result says why). */
    public Result run() throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String runId = null;
        while ((runId = stack.writer().currentRun()) == null) {
            if (System.nanoTime() > deadline) {
                return new Result(false, "the demo writer started no pipeline run within " + timeout);
            }
            Thread.sleep(100);
        }
        List<String> events;
        try {
            events = readStream(runId, remaining(deadline));
        } catch (TimeoutException e) {
            return new Result(false, "the log stream of run " + runId + " did not complete within " + timeout);
        } catch (ExecutionException | IOException e) {
            return new Result(false, "reading the log stream of run " + runId + " failed: " + e.getMessage());
        }
        String last = events.isEmpty() ? "" : events.get(events.size() - 1);
        if (!last.contains("\"eventType\":\"complete\"")) {
            return new Result(false, "the log stream of run " + runId + " ended without complete: " + last);
        }
        long logEvents = events.stream().filter(e -> e.contains("\"eventType\":\"logs\"")).count();
        long captured;
        while ((captured = capturedChanges(remaining(deadline))) < 1) {
            if (System.nanoTime() > deadline) {
                return new Result(false, "no change event reached " + DevSettings.NAMESPACE + "changes within "
                        + timeout + " (" + stack.writer().eventsWritten() + " inserted)");
            }
            Thread.sleep(200);
        }
        while (stack.webhook().received() < 1) {
            if (System.nanoTime() > deadline) {
                return new Result(false, "no alert reached the demo webhook sink within " + timeout + " ("
                        + captured + " change events captured)");
            }
            Thread.sleep(200);
        }
        while (stack.webhook().lineageReceived() < 1) {
            if (System.nanoTime() > deadline) {
                return new Result(false, "no OpenLineage event of a finished demo run reached the sink within "
                        + timeout + " (" + stack.writer().runsFinished() + " runs finished)");
            }
            Thread.sleep(200);
        }
        String layout = checkLayout(remaining(deadline));
        if (!layout.isEmpty()) {
            return new Result(false, layout);
        }
        String metrics = checkMetrics(remaining(deadline));
        if (!metrics.isEmpty()) {
            return new Result(false, metrics);
        }
        return new Result(true, captured + " change events captured from " + stack.writer().eventsWritten()
                + " inserted; log stream of run " + runId + " completed after " + logEvents + " log events ("
                + last + "); " + stack.webhook().received() + " alerts delivered to the webhook sink ("
                + stack.webhook().repeated() + " repeated Idempotency-Keys); " + stack.webhook().lineageReceived()
                + " OpenLineage events of finished runs");
    }

    /**
     * The probe endpoints every service serves, checked for 200 on each service by the smoke run (the Kubernetes
     * manifests' probes may use only these: {@code KubernetesManifestsTest}).
     */
    public static final java.util.List<String> PROBE_PATHS = java.util.List.of("/health/live", "/health/ready");

    /**
     * Scrapes every service's {@code /metrics}, keeps each scrape in {@code <data-dir>/smoke/<service>.prom} (for
     * {@code promtool check metrics} and CI artifacts), checks every metric family has HELP text and that every
     * {@link #PROBE_PATHS probe path} answers 200.
     *
     * @return empty when all passed, else why not
     */
    private String checkMetrics(Duration within) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        Path dir = stack.dataDir().resolve("smoke");
        for (Map.Entry<String, String> service : stack.metricsUrls().entrySet()) {
            try {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(service.getValue()))
                        .timeout(within).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    return service.getKey() + " /metrics answered " + r.statusCode();
                }
                for (String path : PROBE_PATHS) {
                    URI probe = URI.create(service.getValue().replaceFirst("/metrics$", path));
                    int status = client.send(HttpRequest.newBuilder(probe).timeout(within).GET().build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode();
                    if (status != 200) {
                        return service.getKey() + " " + path + " answered " + status;
                    }
                }
                Files.createDirectories(dir);
                Files.writeString(dir.resolve(service.getKey() + ".prom"), r.body());
                Set<String> help = new HashSet<>();
                for (String line : r.body().split("\n")) {
                    if (line.startsWith("# HELP ")) {
                        help.add(line.split(" ")[2]);
                    } else if (line.startsWith("# TYPE ") && !help.contains(line.split(" ")[2])) {
                        return service.getKey() + " /metrics: " + line.split(" ")[2] + " has no HELP text";
                    }
                }
            } catch (IOException e) {
                return service.getKey() + " /metrics failed: " + e.getMessage();
            }
        }
        return "";
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    /** SSE data lines of the run's stream from its start until the server closes it. */
    private List<String> readStream(String runId, Duration within)
            throws IOException, ExecutionException, TimeoutException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(stack.logsUrl()
                        + "/api/v1/services/ingestionPipelines/logs/" + DemoWriter.PIPELINE_FQN + "/stream/" + runId))
                .header("Authorization", "Bearer " + token)
                .header("Accept", "text/event-stream")
                .GET().build();
        ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "dev-smoke-sse");
            t.setDaemon(true);
            return t;
        });
        try {
            CompletableFuture<List<String>> events = CompletableFuture.supplyAsync(() -> {
                try {
                    HttpResponse<Stream<String>> response = client.send(request, HttpResponse.BodyHandlers.ofLines());
                    if (response.statusCode() != 200) {
                        throw new IllegalStateException("HTTP " + response.statusCode());
                    }
                    List<String> data = new ArrayList<>();
                    try (Stream<String> lines = response.body()) {
                        Iterator<String> it = lines.iterator();
                        while (it.hasNext()) {
                            String line = it.next();
                            if (line.startsWith("data:")) {
                                data.add(line.substring(5).trim());
                                if (line.contains("\"eventType\":\"complete\"") || line.contains("\"eventType\":\"error\"")) {
                                    break;
                                }
                            }
                        }
                    }
                    return data;
                } catch (IOException e) {
                    throw new IllegalStateException(e.getMessage(), e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }, reader);
            return events.get(within.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            reader.shutdownNow();
        }
    }

    /**
     * The topic layout the stack's services agree on (issue 23): the ledger has at least the partitions of every
     * source topic, else the alert service shares ledger partitions by modulus and warns at every rebuild.
     *
     * @return empty when it holds, else which topics disagree
     */
    private String checkLayout(Duration within) {
        TopicCatalog names = new TopicCatalog(DevSettings.NAMESPACE);
        List<String> topics = List.of(names.changes().name(), names.pipelineStatus().name(),
                names.alertLedger().name());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
            Map<String, Integer> partitions = new java.util.TreeMap<>();
            AdminCalls.await(admin.describeTopics(topics).allTopicNames(), within, "describe " + topics)
                    .forEach((topic, d) -> partitions.put(topic, d.partitions().size()));
            int ledger = partitions.get(names.alertLedger().name());
            boolean agree = partitions.get(names.changes().name()) <= ledger
                    && partitions.get(names.pipelineStatus().name()) <= ledger;
            return agree ? "" : "the topic layout disagrees: " + partitions + " (the ledger needs at least the "
                    + "partitions of changes and pipeline-status)";
        }
    }

    private long capturedChanges(Duration within) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
            String topic = DevSettings.NAMESPACE + "changes";
            int partitions = AdminCalls.await(admin.describeTopics(List.of(topic)).allTopicNames(), within,
                    "describe " + topic).get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> request = new java.util.HashMap<>();
            for (int p = 0; p < partitions; p++) {
                request.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            return AdminCalls.await(admin.listOffsets(request).all(), within, "list offsets of " + topic)
                    .values().stream().collect(Collectors.summingLong(i -> i.offset()));
        }
    }
}
