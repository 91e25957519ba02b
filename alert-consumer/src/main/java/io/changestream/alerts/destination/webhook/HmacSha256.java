package io.changestream.alerts.destination.webhook;

import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 of a request body, for both signature schemes ({@code X-OM-Signature} and Standard Webhooks). Each
 * thread keeps one {@link Mac} and re-keys it per call: looking the algorithm up per request
 * ({@link Mac#getInstance}) cost more than the signature of a small body (issue 22, request cost). Any thread.
 */
final class HmacSha256 {

    private static final String ALGORITHM = "HmacSHA256";
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance(ALGORITHM);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(ALGORITHM + " unavailable", e);
        }
    });

    private HmacSha256() {
    }

    /** The MAC of {@code prefix} (may be null) followed by {@code body}, keyed by {@code key}. */
    static byte[] of(byte[] key, byte[] prefix, byte[] body) {
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(key, ALGORITHM));
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("an HMAC key was refused", e);
        }
        if (prefix != null) {
            mac.update(prefix);
        }
        return mac.doFinal(body);
    }
}
