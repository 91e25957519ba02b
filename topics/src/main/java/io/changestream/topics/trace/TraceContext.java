package io.changestream.topics.trace;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A W3C Trace Context {@code traceparent} (<a href="https://www.w3.org/TR/trace-context/">Trace Context</a>, version
 * {@code 00}): {@code 00-<32 hex trace id>-<16 hex parent/span id>-<2 hex flags>}, lower-case. The CDC connector
 * starts a trace for every record it produces (header {@value #HEADER}); the alert service continues it and sends a
 * child (same trace id, new span id) on each outbound request. Immutable.
 *
 * <p>Parsing follows the spec's rules: version {@code ff} is invalid, an all-zero trace id or span id is invalid,
 * upper-case hex is invalid; a higher version is read by its first four fields when what follows them starts with
 * {@code -}. Ids are random (not cryptographic: they identify, they protect nothing).
 *
 * @param traceId 32 lower-case hex characters, not all zero
 * @param spanId  16 lower-case hex characters, not all zero (the parent-id field)
 * @param flags   the trace flags byte ({@code 01} = sampled)
 */
public record TraceContext(String traceId, String spanId, int flags) {

    /** The record and HTTP header name. */
    public static final String HEADER = "traceparent";
    /** The sampled flag. */
    public static final int SAMPLED = 0x01;
    private static final int LENGTH_V00 = 55;
    private static final HexFormat HEX = HexFormat.of();

    public TraceContext {
        if (!isHexId(traceId, 32)) {
            throw new IllegalArgumentException("traceId must be 32 lower-case hex characters, not all zero, was "
                    + traceId);
        }
        if (!isHexId(spanId, 16)) {
            throw new IllegalArgumentException("spanId must be 16 lower-case hex characters, not all zero, was "
                    + spanId);
        }
        if (flags < 0 || flags > 0xff) {
            throw new IllegalArgumentException("flags must be one byte, was " + flags);
        }
    }

    /** A new trace: random trace id and span id, sampled. */
    public static TraceContext newTrace() {
        return new TraceContext(randomHex(32), randomHex(16), SAMPLED);
    }

    /** The same trace with a new span id: what an outbound call under this context sends. */
    public TraceContext child() {
        return new TraceContext(traceId, randomHex(16), flags);
    }

    /** The {@code traceparent} value, version {@code 00}. */
    public String format() {
        return "00-" + traceId + "-" + spanId + "-" + HEX.toHexDigits((byte) flags);
    }

    /** {@link #format()} as UTF-8 bytes, for a record header. */
    public byte[] headerValue() {
        return format().getBytes(StandardCharsets.UTF_8);
    }

    /** The context of a {@code traceparent} value; empty when it is null or malformed. */
    public static Optional<TraceContext> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        String v = value.strip();
        if (v.length() < LENGTH_V00 || v.charAt(2) != '-' || v.charAt(35) != '-' || v.charAt(52) != '-') {
            return Optional.empty();
        }
        String version = v.substring(0, 2);
        if (!isHex(version) || version.equals("ff")) {
            return Optional.empty();
        }
        if (version.equals("00") ? v.length() != LENGTH_V00 : v.length() > LENGTH_V00 && v.charAt(LENGTH_V00) != '-') {
            return Optional.empty();
        }
        String traceId = v.substring(3, 35);
        String spanId = v.substring(36, 52);
        String flags = v.substring(53, 55);
        if (!isHexId(traceId, 32) || !isHexId(spanId, 16) || !isHex(flags)) {
            return Optional.empty();
        }
        return Optional.of(new TraceContext(traceId, spanId, Integer.parseInt(flags, 16)));
    }

    /** The context of a record header's bytes (UTF-8); empty when absent or malformed. */
    public static Optional<TraceContext> parse(byte[] headerValue) {
        return headerValue == null ? Optional.empty() : parse(new String(headerValue, StandardCharsets.UTF_8));
    }

    /** The context a header carries, or a new trace when it carries none (or a malformed one). */
    public static TraceContext continueOrStart(byte[] headerValue) {
        return parse(headerValue).orElseGet(TraceContext::newTrace);
    }

    private static boolean isHexId(String s, int length) {
        if (s == null || s.length() != length || !isHex(s)) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (s.charAt(i) != '0') {
                return true;
            }
        }
        return false;
    }

    private static boolean isHex(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static String randomHex(int length) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length / 16; i++) {
            long bits = random.nextLong();
            out.append(HEX.toHexDigits(i == 0 && bits == 0 ? 1 : bits));
        }
        return out.toString();
    }
}
