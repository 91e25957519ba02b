package io.changestream.ops.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.changestream.ops.dev.SmokeCheck;
import io.changestream.settings.SecretKeys;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every manifest under {@code ops/k8s/} parsed into fabric8's typed Kubernetes objects — a field the model does not
 * know fails, as a misspelt key would be dropped by a lenient apply — then checked for what an operator relies on:
 * each service has its workload, Service and PodDisruptionBudget; probes use only the endpoints the smoke run proves
 * every service serves ({@link SmokeCheck#PROBE_PATHS}) on the port the service is configured to listen on; the
 * Prometheus annotations point at that port's {@code /metrics}; resources are set; and no secret is inlined.
 */
class KubernetesManifestsTest {

    private static final Path DIR = Path.of("k8s");
    private static final List<String> SERVICES = List.of("cdc-connector", "alert-consumer", "log-tailer");
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "v1/ConfigMap", ConfigMap.class, "v1/Secret", Secret.class, "v1/Service", Service.class,
            "v1/PersistentVolumeClaim", PersistentVolumeClaim.class, "apps/v1/Deployment", Deployment.class,
            "apps/v1/StatefulSet", StatefulSet.class, "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class);
    private static final Pattern SECRET_ENV = Pattern.compile(".*(PASSWORD|SECRET|TOKEN|TOKENS|JAAS.*|CREDENTIALS?)$");

    /** Objects by file, in file order. */
    private static final Map<Path, List<HasMetadata>> MANIFESTS = new TreeMap<>();

    @BeforeAll
    static void parse() throws IOException {
        ObjectMapper yaml = new YAMLMapper();
        ObjectMapper json = JsonMapper.builder().build();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(DIR)) {
            files = walk.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted()
                    .toList();
        }
        assertFalse(files.isEmpty(), "no manifests under " + DIR.toAbsolutePath());
        for (Path file : files) {
            List<HasMetadata> objects = new ArrayList<>();
            try (var parser = new YAMLFactory().createParser(new StringReader(Files.readString(file)))) {
                for (JsonNode node : yaml.readValues(parser, JsonNode.class).readAll()) {
                    if (node == null || node.isNull() || node.isMissingNode()) {
                        continue;
                    }
                    String type = node.path("apiVersion").asText() + "/" + node.path("kind").asText();
                    Class<? extends HasMetadata> cls = KINDS.get(type);
                    assertNotNull(cls, file + ": unexpected kind " + type);
                    HasMetadata object = json.treeToValue(node, cls);
                    List<String> unknown = new ArrayList<>();
                    unknownFields(object, type, unknown, new IdentityHashMap<>());
                    assertTrue(unknown.isEmpty(), file + ": fields the Kubernetes model does not know: " + unknown);
                    objects.add(object);
                }
            }
            MANIFESTS.put(file, objects);
        }
    }

    private static <T extends HasMetadata> List<T> all(Class<T> cls) {
        return MANIFESTS.values().stream().flatMap(List::stream).filter(cls::isInstance).map(cls::cast).toList();
    }

    private static PodTemplateSpec template(String service) {
        List<PodTemplateSpec> found = new ArrayList<>();
        all(Deployment.class).stream().filter(d -> d.getMetadata().getName().equals(service))
                .forEach(d -> found.add(d.getSpec().getTemplate()));
        all(StatefulSet.class).stream().filter(d -> d.getMetadata().getName().equals(service))
                .forEach(d -> found.add(d.getSpec().getTemplate()));
        assertEquals(1, found.size(), "one workload named " + service);
        return found.get(0);
    }

    /** The service's http.port as its properties file in the ConfigMap sets it. */
    private static int configuredPort(Container c) throws IOException {
        int i = c.getArgs().indexOf("--config");
        assertTrue(i >= 0, c.getName() + " runs with --config");
        String file = Path.of(c.getArgs().get(i + 1)).getFileName().toString();
        ConfigMap config = all(ConfigMap.class).stream().filter(m -> m.getData().containsKey(file)).findFirst()
                .orElseThrow(() -> new AssertionError("no ConfigMap holds " + file));
        Properties p = new Properties();
        p.load(new StringReader(config.getData().get(file)));
        return Integer.parseInt(p.getProperty("http.port"));
    }

    private static int portNumber(Container c, HTTPGetAction get) {
        if (get.getPort().getIntVal() != null) {
            return get.getPort().getIntVal();
        }
        return c.getPorts().stream().filter(p -> get.getPort().getStrVal().equals(p.getName()))
                .map(ContainerPort::getContainerPort).findFirst()
                .orElseThrow(() -> new AssertionError(c.getName() + ": no port named " + get.getPort().getStrVal()));
    }

    @Test
    void everyServiceHasAWorkloadAServiceAndADisruptionBudgetSelectingItsPods() {
        for (String service : SERVICES) {
            Map<String, String> labels = template(service).getMetadata().getLabels();
            assertTrue(all(Service.class).stream().anyMatch(s -> labels.entrySet()
                    .containsAll(s.getSpec().getSelector().entrySet())), service + ": a Service selects its pods");
            List<PodDisruptionBudget> budgets = all(PodDisruptionBudget.class).stream().filter(b -> labels.entrySet()
                    .containsAll(b.getSpec().getSelector().getMatchLabels().entrySet())).toList();
            assertEquals(1, budgets.size(), service + ": one PodDisruptionBudget selects its pods");
        }
    }

    @Test
    void probesUseTheEndpointsTheServicesServeOnTheirConfiguredPort() throws IOException {
        for (String service : SERVICES) {
            for (Container c : template(service).getSpec().getContainers()) {
                int port = configuredPort(c);
                assertNotNull(c.getLivenessProbe(), service + ": liveness probe");
                assertNotNull(c.getReadinessProbe(), service + ": readiness probe");
                for (Probe probe : Stream.of(c.getLivenessProbe(), c.getReadinessProbe(), c.getStartupProbe())
                        .filter(java.util.Objects::nonNull).toList()) {
                    HTTPGetAction get = probe.getHttpGet();
                    assertNotNull(get, service + ": HTTP probes");
                    assertTrue(SmokeCheck.PROBE_PATHS.contains(get.getPath()),
                            service + ": probe path " + get.getPath() + " is not one of " + SmokeCheck.PROBE_PATHS);
                    assertEquals(port, portNumber(c, get), service + ": probe port = the configured http.port");
                }
                assertTrue(c.getPorts().stream().anyMatch(p -> p.getContainerPort() == port),
                        service + ": the container declares port " + port);
            }
        }
        // the alert and log services take traffic only when ready; the connector's standby is never "ready"
        // (no capture), so its readiness is liveness (cdc-connector.yaml, docs/decisions/1504)
        assertEquals("/health/ready", template("alert-consumer").getSpec().getContainers().get(0)
                .getReadinessProbe().getHttpGet().getPath());
        assertEquals("/health/ready", template("log-tailer").getSpec().getContainers().get(0)
                .getReadinessProbe().getHttpGet().getPath());
    }

    @Test
    void prometheusScrapesMetricsOnTheServicePortAndResourcesAreBounded() throws IOException {
        for (String service : SERVICES) {
            PodTemplateSpec t = template(service);
            Container c = t.getSpec().getContainers().get(0);
            Map<String, String> a = t.getMetadata().getAnnotations();
            assertEquals("true", a.get("prometheus.io/scrape"), service);
            assertEquals("/metrics", a.get("prometheus.io/path"), service);
            assertEquals(Integer.toString(configuredPort(c)), a.get("prometheus.io/port"), service);
            assertNotNull(c.getResources().getRequests().get("cpu"), service + ": cpu request");
            assertNotNull(c.getResources().getRequests().get("memory"), service + ": memory request");
            assertNotNull(c.getResources().getLimits().get("memory"), service + ": memory limit");
            assertTrue(Boolean.TRUE.equals(t.getSpec().getSecurityContext().getRunAsNonRoot()), service);
        }
        Deployment cdc = all(Deployment.class).stream().filter(d -> d.getMetadata().getName().equals("cdc-connector"))
                .findFirst().orElseThrow();
        assertEquals(2, cdc.getSpec().getReplicas(), "one active connector and its standby");
    }

    @Test
    void noSecretIsInlined() throws IOException {
        Set<String> secretKeys = new java.util.HashSet<>();
        for (Map.Entry<Path, List<HasMetadata>> file : MANIFESTS.entrySet()) {
            for (HasMetadata o : file.getValue()) {
                if (o instanceof Secret s) {
                    assertFalse(file.getKey().getParent().equals(DIR), file.getKey()
                            + ": a Secret in the applied directory; keep only its shape, under secret/");
                    Map<String, String> values = new TreeMap<>();
                    if (s.getStringData() != null) {
                        values.putAll(s.getStringData());
                    }
                    if (s.getData() != null) {
                        values.putAll(s.getData());
                    }
                    values.forEach((k, v) -> assertTrue(v == null || v.isEmpty(), file.getKey() + ": " + k
                            + " holds a value"));
                    secretKeys.addAll(values.keySet());
                }
                if (o instanceof ConfigMap m) {
                    for (Map.Entry<String, String> entry : m.getData().entrySet()) {
                        Properties p = new Properties();
                        p.load(new StringReader(entry.getValue()));
                        for (String key : p.stringPropertyNames()) {
                            assertFalse(SecretKeys.isSecret(key), file.getKey() + ": " + entry.getKey()
                                    + " sets the secret " + key + " in a ConfigMap");
                        }
                    }
                }
            }
        }
        for (String service : SERVICES) {
            for (Container c : template(service).getSpec().getContainers()) {
                for (EnvVar env : c.getEnv()) {
                    if (SECRET_ENV.matcher(env.getName()).matches()) {
                        assertTrue(env.getValue() == null, service + ": " + env.getName() + " inlined");
                        assertNotNull(env.getValueFrom().getSecretKeyRef(), service + ": " + env.getName()
                                + " comes from a Secret");
                        assertTrue(secretKeys.contains(env.getValueFrom().getSecretKeyRef().getKey()),
                                service + ": " + env.getName() + " refers to a key the Secret's shape declares");
                    }
                }
            }
        }
    }

    /**
     * Walks a parsed object and records every field the model kept in an {@code additionalProperties} map (fabric8
     * stores unknown fields there instead of failing).
     */
    private static void unknownFields(Object o, String path, List<String> out, Map<Object, Boolean> seen) {
        if (o == null || seen.put(o, Boolean.TRUE) != null) {
            return;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                unknownFields(e, path + "[" + i++ + "]", out, seen);
            }
            return;
        }
        if (o instanceof Map<?, ?> m) {
            m.forEach((k, v) -> unknownFields(v, path + "." + k, out, seen));
            return;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : o.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get")
                    || getter.getName().equals("getClass")) {
                continue;
            }
            Object value;
            try {
                value = getter.invoke(o);
            } catch (ReflectiveOperationException e) {
                continue;
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    out.add(path + ": " + extra.keySet());
                }
            } else {
                unknownFields(value, path + "." + getter.getName().substring(3), out, seen);
            }
        }
    }
}
