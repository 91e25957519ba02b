package io.changestream.alerts.filter;

import io.changestream.topics.model.ChangeEvent;
import java.util.Objects;

/**
 * A compiled condition. {@link #compile(String)} validates everything that can be checked without an event (syntax,
 * function names, argument counts, regular expressions, UUIDs); {@link #test(ChangeEvent)} evaluates it. Immutable;
 * any thread.
 */
public final class FilterCondition {

    private final Expression expression;
    private final FilterSettings settings;

    private FilterCondition(Expression expression, FilterSettings settings) {
        this.expression = expression;
        this.settings = settings;
    }

    /** Compiles with {@link FilterSettings#DEFAULTS}. */
    public static FilterCondition compile(String condition) {
        return compile(condition, FilterSettings.DEFAULTS);
    }

    /**
     * Compiles a condition.
     *
     * @throws FilterSyntaxException with the position when it is not a valid condition
     */
    public static FilterCondition compile(String condition, FilterSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return new FilterCondition(Parser.parse(condition, settings.limits()), settings);
    }

    /** A condition from an already built tree. */
    public static FilterCondition of(Expression expression, FilterSettings settings) {
        return new FilterCondition(Objects.requireNonNull(expression, "expression"), settings);
    }

    /** The syntax tree. */
    public Expression expression() {
        return expression;
    }

    /**
     * Whether the event matches.
     *
     * @throws FilterEvaluationException when the event cannot be evaluated (e.g. its entity is not JSON)
     */
    public boolean test(ChangeEvent event) {
        Objects.requireNonNull(event, "event");
        try {
            return evaluate(expression, new EventFacts(event, settings));
        } catch (FilterEvaluationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new FilterEvaluationException("evaluating '" + expression + "' on event " + event.id()
                    + " failed: " + e, e);
        }
    }

    private static boolean evaluate(Expression e, EventFacts facts) {
        if (e instanceof Expression.Call c) {
            return c.function().apply(facts, c.values());
        }
        if (e instanceof Expression.And a) {
            return evaluate(a.left(), facts) && evaluate(a.right(), facts);
        }
        if (e instanceof Expression.Or o) {
            return evaluate(o.left(), facts) || evaluate(o.right(), facts);
        }
        if (e instanceof Expression.Not n) {
            return !evaluate(n.operand(), facts);
        }
        return ((Expression.Literal) e).value();
    }

    /** The condition in the platform's syntax. */
    @Override
    public String toString() {
        return expression.toString();
    }
}
