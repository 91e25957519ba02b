package io.changestream.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.List;

/**
 * The bearer-token check of every service's API (RFC 6750): {@code Authorization: Bearer <token>}, the scheme in any
 * case, compared with every accepted token in constant time (a timing difference never tells how much of a token was
 * right). Immutable; safe to share between threads.
 */
public final class BearerTokens {

    /** The {@code WWW-Authenticate} value of a 401. */
    public static final String CHALLENGE = "Bearer";

    private static final String SCHEME = "Bearer ";

    private final List<byte[]> tokens;

    /** Accepts any of {@code tokens}; at least one, none blank. */
    public BearerTokens(Collection<String> tokens) {
        if (tokens.isEmpty() || tokens.stream().anyMatch(t -> t == null || t.isBlank())) {
            throw new IllegalArgumentException("bearer tokens must be at least one, none blank");
        }
        this.tokens = tokens.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toList();
    }

    /** Accepts {@code token} only. */
    public static BearerTokens of(String token) {
        return new BearerTokens(List.of(token));
    }

    /** The token of a {@code Bearer} header (trimmed), or the empty string when there is none. */
    public static String token(String authorizationHeader) {
        if (authorizationHeader == null
                || !authorizationHeader.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return "";
        }
        return authorizationHeader.substring(SCHEME.length()).trim();
    }

    /** True when the header carries an accepted token. */
    public boolean allows(String authorizationHeader) {
        String token = token(authorizationHeader);
        if (token.isEmpty()) {
            return false;
        }
        byte[] given = token.getBytes(StandardCharsets.UTF_8);
        boolean ok = false;
        for (byte[] accepted : tokens) {
            ok |= MessageDigest.isEqual(accepted, given); // every token compared: no early exit
        }
        return ok;
    }
}
