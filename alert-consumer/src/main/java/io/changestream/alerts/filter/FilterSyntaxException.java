package io.changestream.alerts.filter;

/**
 * A condition that cannot be compiled: a syntax error, an unknown function, a wrong number of arguments or an
 * argument the function refuses (an invalid regular expression or UUID). Raised at save time; the REST layer answers
 * 400 with {@link #getMessage()}, which names the position.
 */
public final class FilterSyntaxException extends FilterException {

    private final int position;

    public FilterSyntaxException(String message, int position) {
        super(message + " at position " + position);
        this.position = position;
    }

    /** Zero-based character offset in the condition where the problem was found. */
    public int position() {
        return position;
    }
}
