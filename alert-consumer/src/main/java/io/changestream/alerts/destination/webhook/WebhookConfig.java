package io.changestream.alerts.destination.webhook;

import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.IdentityMemo;
import io.changestream.alerts.destination.Secrets;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The platform's webhook config ({@code endpoint}, {@code secretKey}, {@code headers}, {@code httpMethod} POST|PUT,
 * {@code queryParams}), shared by Webhook, Slack, MS Teams and Google Chat destinations, plus changestream's
 * {@code signatureScheme} ({@code om} default, {@code standard}, {@code both}; webhooks only). {@link #toString()}
 * masks the secret, header values and what of the endpoint can carry a credential ({@link Secrets#maskUrl}).
 *
 * @param endpoint        target URL, query parameters applied
 * @param httpMethod      POST (default) or PUT
 * @param headers         custom headers
 * @param secretKey       HMAC key of {@code X-OM-Signature} (its UTF-8 bytes, as the platform uses it) and, for the
 *                        Standard Webhooks scheme, a {@code whsec_} secret; or null
 * @param signatureScheme which signature headers are sent; STANDARD and BOTH require a {@code whsec_} secret
 */
public record WebhookConfig(URI endpoint, String httpMethod, Map<String, String> headers, String secretKey,
                            SignatureScheme signatureScheme) {

    /** Slots of the memo of parsed configs: configs whose parse is kept (two configs may share a slot). */
    static final int CONFIG_SLOTS = 4096;
    /** Parsed configs by the config object's identity: every delivery looks its destination's up. */
    private static final IdentityMemo<JsonNode, WebhookConfig> PARSED = new IdentityMemo<>(CONFIG_SLOTS);

    public WebhookConfig {
        headers = Map.copyOf(headers);
        signatureScheme = signatureScheme == null ? SignatureScheme.OM : signatureScheme;
        if (signatureScheme.signsStandard()) {
            StandardWebhookSigner.decodeSecret(secretKey);
        }
    }

    /** The Standard Webhooks key bytes; only for a scheme that {@link SignatureScheme#signsStandard() signs so}. */
    public byte[] standardKey() {
        return StandardWebhookSigner.decodeSecret(secretKey);
    }

    /**
     * Reads a destination's {@code config}. A config object read before is not read again: the result is kept by the
     * object's identity (a destination's config is never changed in place; an edit makes a new one) in one of
     * {@value #CONFIG_SLOTS} slots, until a later config takes the slot.
     *
     * @throws DestinationConfigException naming the field ({@code config.endpoint}, {@code config.httpMethod}…)
     */
    public static WebhookConfig parse(JsonNode config) {
        WebhookConfig known = config == null ? null : PARSED.get(config);
        if (known != null) {
            return known;
        }
        WebhookConfig parsed = read(config);
        PARSED.put(config, parsed);
        return parsed;
    }

    private static WebhookConfig read(JsonNode config) {
        if (config == null || !config.isObject()) {
            throw new DestinationConfigException("config", "is required and must be an object");
        }
        JsonNode endpointNode = config.get("endpoint");
        if (endpointNode == null || !endpointNode.isTextual() || endpointNode.asText().isBlank()) {
            throw new DestinationConfigException("config.endpoint", "is required");
        }
        URI endpoint;
        try {
            endpoint = new URI(endpointNode.asText().strip());
        } catch (URISyntaxException e) {
            throw new DestinationConfigException("config.endpoint", "is not a URL: " + e.getMessage());
        }
        String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
        if ((!scheme.equals("http") && !scheme.equals("https")) || endpoint.getHost() == null) {
            throw new DestinationConfigException("config.endpoint", "must be an http or https URL with a host");
        }
        String method = text(config, "httpMethod", "POST").toUpperCase(Locale.ROOT);
        if (!method.equals("POST") && !method.equals("PUT")) {
            throw new DestinationConfigException("config.httpMethod", "must be POST or PUT, was " + method);
        }
        Map<String, String> queryParams = map(config, "queryParams");
        if (!queryParams.isEmpty()) {
            String query = queryParams.entrySet().stream()
                    .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
                    .collect(Collectors.joining("&"));
            String existing = endpoint.getRawQuery();
            String raw = endpoint.toString();
            int hash = raw.indexOf('#');
            String base = hash < 0 ? raw : raw.substring(0, hash);
            endpoint = URI.create(base + (existing == null ? "?" : "&") + query);
        }
        String secret = text(config, "secretKey", null);
        return new WebhookConfig(endpoint, method, map(config, "headers"),
                secret == null || secret.isEmpty() ? null : secret,
                SignatureScheme.parse(text(config, "signatureScheme", null)));
    }

    private static String text(JsonNode config, String field, String fallback) {
        JsonNode node = config.get(field);
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isValueNode()) {
            throw new DestinationConfigException("config." + field, "must be a string");
        }
        return node.asText();
    }

    private static Map<String, String> map(JsonNode config, String field) {
        JsonNode node = config.get(field);
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new DestinationConfigException("config." + field, "must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        node.fields().forEachRemaining(e -> {
            if (!e.getValue().isValueNode()) {
                throw new DestinationConfigException("config." + field + "." + e.getKey(), "must be a string");
            }
            out.put(e.getKey(), e.getValue().asText());
        });
        return out;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "WebhookConfig[endpoint=" + Secrets.maskUrl(endpoint.toString(), false) + ", httpMethod=" + httpMethod
                + ", headers=" + headers.keySet() + ", secretKey=" + (secretKey == null ? "none" : Secrets.MASK)
                + ", signatureScheme=" + signatureScheme + "]";
    }
}
