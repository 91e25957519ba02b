package io.changestream.alerts.destination;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.changestream.settings.SecretKeys;
import io.changestream.topics.model.SubscriptionType;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The one rule that decides what of a destination config is a secret, applied before anything leaves the service
 * (REST responses, logs) and, backwards, when a client sends a masked value back:
 * <ul>
 *   <li>a field named like a secret ({@link SecretKeys#isSecret} — password, secret, token, credential… — plus
 *       {@code apiKey}, {@code authorization}, {@code cookie}), at any depth, is {@value #MASK};</li>
 *   <li>every value of {@code headers} and of {@code queryParams} is {@value #MASK} (custom headers carry API keys);</li>
 *   <li>a URL is masked where it can carry a credential: user info and query always; the whole path when the URL is
 *       the credential — Slack, MS Teams and Google Chat destinations, or any URL on a known incoming-webhook host
 *       ({@code hooks.slack.com}, {@code *.webhook.office.com}, {@code chat.googleapis.com}, {@code discord.com})
 *       — e.g. {@code https://hooks.slack.com/********}.</li>
 * </ul>
 * A value sent back equal to the masked form of the stored one keeps the stored value ({@link #unmask}), unless the
 * destination's type or endpoint changes with it ({@link #unmaskForUpdate}: then the secret must be sent again).
 * Stateless; any thread.
 */
public final class Secrets {

    /**
     * What a secret is replaced by in the API's answers and in failure reasons: eight asterisks, the admin API's
     * contract since its first release (a client's PUT of a GET answer carries it back to mean "unchanged"); the
     * settings' own mask in logs and printed configs is {@link SecretKeys#MASK}.
     */
    public static final String MASK = "********";

    private static final Set<String> MORE_SECRET_FIELDS = Set.of("apikey", "api_key", "x-api-key", "authorization",
            "cookie", "privatekey", "private_key");
    private static final Set<String> ALL_VALUES_SECRET = Set.of("headers", "queryparams");
    /** Config fields that say where a destination sends ({@link #unmaskForUpdate}). */
    private static final List<String> TARGET_FIELDS = List.of("endpoint", "batchEndpoint", "url", "transport",
            "topic");
    private static final Set<SubscriptionType> URL_IS_THE_SECRET = Set.of(SubscriptionType.SLACK,
            SubscriptionType.MS_TEAMS, SubscriptionType.G_CHAT);

    private Secrets() {
    }

    /** Whether a field name holds a secret. */
    public static boolean isSecretField(String name) {
        return SecretKeys.isSecret(name) || MORE_SECRET_FIELDS.contains(name.toLowerCase(Locale.ROOT));
    }

    /** {@link #masked(SubscriptionType, JsonNode)} for a destination whose type is not a chat. */
    public static JsonNode masked(JsonNode config) {
        return masked(null, config);
    }

    /** A deep copy of a destination's config with every secret masked; null stays null. */
    public static JsonNode masked(SubscriptionType type, JsonNode config) {
        if (config == null) {
            return null;
        }
        JsonNode copy = config.deepCopy();
        maskInPlace(copy, type != null && URL_IS_THE_SECRET.contains(type), false);
        return copy;
    }

    private static void maskInPlace(JsonNode node, boolean urlIsTheSecret, boolean allValuesSecret) {
        if (node instanceof ObjectNode object) {
            Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode value = field.getValue();
                if (value.isValueNode()) {
                    if (!value.isNull() && !value.asText().isEmpty()) {
                        field.setValue(maskValue(field.getKey(), value, urlIsTheSecret, allValuesSecret));
                    }
                } else {
                    maskInPlace(value, urlIsTheSecret,
                            allValuesSecret || ALL_VALUES_SECRET.contains(field.getKey().toLowerCase(Locale.ROOT)));
                }
            }
        } else if (node != null && node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                JsonNode value = node.get(i);
                if (value.isValueNode() && allValuesSecret) {
                    ((ArrayNode) node).set(i, TextNode.valueOf(MASK));
                } else {
                    maskInPlace(value, urlIsTheSecret, allValuesSecret);
                }
            }
        }
    }

    private static JsonNode maskValue(String name, JsonNode value, boolean urlIsTheSecret, boolean allValuesSecret) {
        if (allValuesSecret || isSecretField(name)) {
            return TextNode.valueOf(MASK);
        }
        if (value.isTextual()) {
            String masked = maskUrl(value.asText(), urlIsTheSecret);
            return masked.equals(value.asText()) ? value : TextNode.valueOf(masked);
        }
        return value;
    }

    /**
     * A URL with what can carry a credential masked (text that is not an http(s) URL is returned as is).
     *
     * @param wholePath mask the path too (the URL is the credential)
     */
    public static String maskUrl(String text, boolean wholePath) {
        String trimmed = text.strip();
        String lower = trimmed.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
            return text;
        }
        URI uri;
        try {
            uri = new URI(trimmed);
        } catch (URISyntaxException e) {
            return MASK;
        }
        if (uri.getHost() == null) {
            return MASK;
        }
        boolean tokenHost = isIncomingWebhookHost(uri.getHost());
        StringBuilder out = new StringBuilder(uri.getScheme()).append("://");
        if (uri.getRawUserInfo() != null) {
            out.append(MASK).append('@');
        }
        out.append(uri.getHost().contains(":") && !uri.getHost().startsWith("[") ? "[" + uri.getHost() + "]"
                : uri.getHost());
        if (uri.getPort() >= 0) {
            out.append(':').append(uri.getPort());
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if ((wholePath || tokenHost) && !path.isEmpty() && !path.equals("/")) {
            out.append('/').append(MASK);
        } else {
            out.append(path);
        }
        if (uri.getRawQuery() != null) {
            out.append('?').append(MASK);
        }
        return out.toString();
    }

    private static boolean isIncomingWebhookHost(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("hooks.slack.com") || h.endsWith(".webhook.office.com") || h.equals("outlook.office.com")
                || h.equals("chat.googleapis.com") || h.equals("discord.com") || h.equals("discordapp.com");
    }

    /** {@link #unmask(SubscriptionType, JsonNode, JsonNode)} for a destination whose type is not a chat. */
    public static JsonNode unmask(JsonNode incoming, JsonNode stored) {
        return unmask(null, incoming, stored);
    }

    /**
     * The incoming config with every value that equals the masked form of the stored one replaced by the stored
     * value, so that a client that GETs a subscription and PUTs it back keeps its secrets (a changed value wins).
     */
    public static JsonNode unmask(SubscriptionType type, JsonNode incoming, JsonNode stored) {
        if (incoming == null || stored == null) {
            return incoming;
        }
        JsonNode copy = incoming.deepCopy();
        restore(copy, stored, masked(type, stored), "config", new ArrayList<>());
        return copy;
    }

    /**
     * {@link #unmask} for a PUT of a stored destination: when its type or where it sends (a top-level
     * {@code endpoint}, {@code batchEndpoint}, {@code url}, {@code transport} or {@code topic} of the config, compared
     * after unmasking) changes, a masked value sent back is refused — the stored secret would go to the new target.
     * Unchanged target: as {@link #unmask}.
     *
     * @param type       the type the request gives the destination
     * @param storedType the stored destination's type (its masked form is what a GET showed)
     * @throws DestinationConfigException naming the first masked value ({@code config.headers.X-Api-Key})
     */
    public static JsonNode unmaskForUpdate(SubscriptionType type, JsonNode incoming, SubscriptionType storedType,
                                           JsonNode stored) {
        if (incoming == null || stored == null) {
            return incoming;
        }
        JsonNode copy = incoming.deepCopy();
        List<String> echoed = new ArrayList<>();
        restore(copy, stored, masked(storedType, stored), "config", echoed);
        if (!echoed.isEmpty()) {
            String changed = type != storedType ? "type" : changedTarget(copy, stored);
            if (changed != null) {
                throw new DestinationConfigException(echoed.get(0), "is the masked value " + MASK + " but the "
                        + "destination's " + changed + " changed: send the secret again (a stored secret is never "
                        + "sent to a new target)");
            }
        }
        return copy;
    }

    /**
     * The path ({@code config.headers.X-Api-Key}) of the first text value that still holds {@value #MASK} — a
     * masked value copied from a response that no stored secret stands behind (a new destination, a copied
     * subscription) — or null. Storing it would make {@value #MASK} the secret.
     */
    public static String firstMasked(JsonNode config) {
        return firstMasked(config, "config");
    }

    private static String firstMasked(JsonNode node, String path) {
        if (node == null) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText().contains(MASK) ? path : null;
        }
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            String found = firstMasked(field.getValue(), path + "." + field.getKey());
            if (found != null) {
                return found;
            }
        }
        for (int i = 0; node.isArray() && i < node.size(); i++) {
            String found = firstMasked(node.get(i), path + "[" + i + "]");
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /**
     * The first field saying where a destination sends ({@code endpoint}, {@code batchEndpoint}, {@code url},
     * {@code transport}, {@code topic}) whose value differs between two configs, as {@code config.endpoint}; null
     * when both send to the same place. Compare unmasked configs.
     */
    public static String changedTarget(JsonNode incoming, JsonNode stored) {
        if (incoming == null || stored == null) {
            return incoming == stored ? null : "config";
        }
        for (String field : TARGET_FIELDS) {
            if (!text(incoming, field).equals(text(stored, field))) {
                return "config." + field;
            }
        }
        return null;
    }

    private static String text(JsonNode config, String field) {
        JsonNode value = config.get(field);
        return value == null || value.isNull() ? "" : value.isValueNode() ? value.asText().strip() : value.toString();
    }

    /** Restores masked values in place; each restored value's path ({@code prefix.a.b[0]}) goes to {@code echoed}. */
    private static void restore(JsonNode incoming, JsonNode stored, JsonNode maskedStored, String prefix,
                                List<String> echoed) {
        if (incoming instanceof ObjectNode object && stored.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode old = stored.get(field.getKey());
                JsonNode oldMasked = maskedStored.get(field.getKey());
                if (old == null || oldMasked == null) {
                    continue;
                }
                String path = prefix + "." + field.getKey();
                if (restored(field.getValue(), old, oldMasked)) {
                    field.setValue(old.deepCopy());
                    echoed.add(path);
                } else {
                    restore(field.getValue(), old, oldMasked, path, echoed);
                }
            }
        } else if (incoming.isArray() && stored.isArray()) {
            ArrayNode array = (ArrayNode) incoming;
            for (int i = 0; i < incoming.size() && i < stored.size(); i++) {
                String path = prefix + "[" + i + "]";
                if (restored(incoming.get(i), stored.get(i), maskedStored.get(i))) {
                    array.set(i, stored.get(i).deepCopy());
                    echoed.add(path);
                } else {
                    restore(incoming.get(i), stored.get(i), maskedStored.get(i), path, echoed);
                }
            }
        }
    }

    private static boolean restored(JsonNode value, JsonNode old, JsonNode oldMasked) {
        return value.isTextual() && !oldMasked.equals(old) && value.asText().equals(oldMasked.asText())
                && oldMasked.isValueNode();
    }
}
