package io.changestream.web;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * One probe's answer: up, or down with a reason an operator can act on (never a secret). Immutable.
 *
 * @param up     whether the probe passes
 * @param reason why it does not; empty when up
 */
public record Health(boolean up, String reason) {

    /** The probe passes. */
    public static final Health UP = new Health(true, "");

    public Health {
        reason = Objects.requireNonNullElse(reason, "");
    }

    /** The probe fails because of {@code reason}. */
    public static Health down(String reason) {
        return new Health(false, reason);
    }

    /** Up when {@code up}, else down because of {@code reason}, asked only then. */
    public static Health of(boolean up, Supplier<String> reason) {
        return up ? UP : down(reason.get());
    }
}
