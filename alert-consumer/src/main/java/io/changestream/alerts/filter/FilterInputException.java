package io.changestream.alerts.filter;

/**
 * A subscription's filter input or filtering rules cannot be compiled. {@link #field()} names the offending JSON
 * field (e.g. {@code input.filters[1].arguments}), so the REST layer can answer 400 naming it.
 */
public final class FilterInputException extends FilterException {

    private final String field;

    public FilterInputException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public FilterInputException(String field, FilterSyntaxException cause) {
        super(field + ": " + cause.getMessage(), cause);
        this.field = field;
    }

    /** The JSON path of the offending field. */
    public String field() {
        return field;
    }
}
