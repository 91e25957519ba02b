package io.changestream.alerts.destination.webhook;

import io.changestream.alerts.destination.DestinationConfigException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;

/**
 * The Standard Webhooks symmetric scheme (standard-webhooks spec 1.0.0, "Signature scheme"): the content signed is
 * {@code {msg_id}.{timestamp}.{body}}, HMAC-SHA256 with the secret's bytes, sent as
 * {@code webhook-signature: v1,<base64>} with {@code webhook-id} and {@code webhook-timestamp} (unix seconds of the
 * attempt). The secret is {@code whsec_<base64 of 24..64 random bytes>}. Stateless; any thread.
 */
public final class StandardWebhookSigner {

    /** Header of the message id: the same on every attempt of one delivery. */
    public static final String ID_HEADER = "webhook-id";
    /** Header of the attempt's unix time in seconds. */
    public static final String TIMESTAMP_HEADER = "webhook-timestamp";
    /** Header of the signature(s). */
    public static final String SIGNATURE_HEADER = "webhook-signature";
    /** Prefix of a symmetric secret. */
    public static final String SECRET_PREFIX = "whsec_";
    /** Fewest secret bytes the spec allows (192 bits). */
    public static final int MIN_SECRET_BYTES = 24;
    /** Most secret bytes the spec allows (512 bits). */
    public static final int MAX_SECRET_BYTES = 64;

    private StandardWebhookSigner() {
    }

    /**
     * The key bytes of a {@code whsec_} secret.
     *
     * @throws DestinationConfigException naming {@code config.secretKey} (never showing the secret)
     */
    public static byte[] decodeSecret(String secret) {
        if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
            throw new DestinationConfigException("config.secretKey",
                    "must be a Standard Webhooks secret (whsec_ followed by base64) for this signatureScheme");
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new DestinationConfigException("config.secretKey", "is not base64 after whsec_");
        }
        if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
            throw new DestinationConfigException("config.secretKey", "must decode to " + MIN_SECRET_BYTES + ".."
                    + MAX_SECRET_BYTES + " bytes, was " + key.length);
        }
        return key;
    }

    /**
     * The message id of a delivery: {@code msg_} and a name-based UUID of its idempotency key, so it is stable
     * across attempts and instances and never contains the {@code .} the signed content is delimited by.
     */
    public static String messageId(String idempotencyKey) {
        return "msg_" + UUID.nameUUIDFromBytes(idempotencyKey.getBytes(StandardCharsets.UTF_8)).toString()
                .replace("-", "");
    }

    /** The three headers of one attempt. */
    public static Map<String, String> headers(byte[] key, String messageId, long epochSeconds, byte[] body) {
        return Map.of(ID_HEADER, messageId, TIMESTAMP_HEADER, Long.toString(epochSeconds),
                SIGNATURE_HEADER, "v1," + sign(key, messageId, epochSeconds, body));
    }

    /** Base64 HMAC-SHA256 of {@code {id}.{timestamp}.{body}}. */
    static String sign(byte[] key, String messageId, long epochSeconds, byte[] body) {
        return Base64.getEncoder().encodeToString(HmacSha256.of(key, (messageId + "." + epochSeconds + ".")
                .getBytes(StandardCharsets.UTF_8), body));
    }
}
