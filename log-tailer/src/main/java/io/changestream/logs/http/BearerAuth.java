package io.changestream.logs.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/** Checks {@code Authorization: Bearer <token>} against the configured tokens in constant time. Immutable. */
public final class BearerAuth {

    private final List<byte[]> tokens;

    /** Accepts any of {@code tokens}. */
    public BearerAuth(List<String> tokens) {
        this.tokens = tokens.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toList();
    }

    /** The token of a {@code Bearer} header (trimmed), or the empty string when there is none. */
    public static String token(String authorizationHeader) {
        if (authorizationHeader == null || !authorizationHeader.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return "";
        }
        return authorizationHeader.substring(7).trim();
    }

    /** True when the header carries an accepted token. */
    public boolean allows(String authorizationHeader) {
        if (authorizationHeader == null || !authorizationHeader.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] given = authorizationHeader.substring(7).trim().getBytes(StandardCharsets.UTF_8);
        boolean ok = false;
        for (byte[] token : tokens) {
            ok |= MessageDigest.isEqual(token, given);
        }
        return ok;
    }
}
