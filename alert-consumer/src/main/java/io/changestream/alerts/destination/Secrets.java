package io.changestream.alerts.destination;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Set;

/**
 * Masks secrets in destination configs before they leave the service (REST responses, logs): every field named
 * like a secret ({@code secretKey}, {@code password}, {@code token}…, at any depth) is replaced by {@value #MASK}.
 * Stateless; any thread.
 */
public final class Secrets {

    /** What a secret is replaced by. */
    public static final String MASK = "********";

    private static final Set<String> SECRET_FIELDS = Set.of("secretkey", "password", "token", "apikey", "api_key",
            "accesstoken", "clientsecret", "authorization");

    private Secrets() {
    }

    /** Whether a field name holds a secret. */
    public static boolean isSecretField(String name) {
        return SECRET_FIELDS.contains(name.toLowerCase(Locale.ROOT));
    }

    /** A deep copy of the node with every secret field masked; null stays null. */
    public static JsonNode masked(JsonNode node) {
        if (node == null) {
            return null;
        }
        JsonNode copy = node.deepCopy();
        maskInPlace(copy);
        return copy;
    }

    private static void maskInPlace(JsonNode node) {
        if (node instanceof ObjectNode object) {
            object.fieldNames().forEachRemaining(name -> {
                JsonNode value = object.get(name);
                if (isSecretField(name) && value.isValueNode() && !value.isNull() && !value.asText().isEmpty()) {
                    object.put(name, MASK);
                } else {
                    maskInPlace(value);
                }
            });
        } else if (node != null && node.isArray()) {
            node.forEach(Secrets::maskInPlace);
        }
    }

    /**
     * The incoming config with every masked secret replaced by the stored one, so that a client that GETs a
     * subscription and PUTs it back does not overwrite its secrets with the mask.
     */
    public static JsonNode unmask(JsonNode incoming, JsonNode stored) {
        if (incoming == null || stored == null) {
            return incoming;
        }
        JsonNode copy = incoming.deepCopy();
        restore(copy, stored);
        return copy;
    }

    private static void restore(JsonNode incoming, JsonNode stored) {
        if (incoming instanceof ObjectNode object && stored.isObject()) {
            object.fieldNames().forEachRemaining(name -> {
                JsonNode value = object.get(name);
                JsonNode old = stored.get(name);
                if (old == null) {
                    return;
                }
                if (value.isTextual() && MASK.equals(value.asText()) && isSecretField(name)) {
                    object.set(name, old.deepCopy());
                } else {
                    restore(value, old);
                }
            });
        } else if (incoming.isArray() && stored.isArray()) {
            for (int i = 0; i < incoming.size() && i < stored.size(); i++) {
                restore(incoming.get(i), stored.get(i));
            }
        }
    }
}
