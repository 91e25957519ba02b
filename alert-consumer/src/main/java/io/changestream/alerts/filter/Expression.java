package io.changestream.alerts.filter;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The syntax tree of a condition. Immutable. {@link #toString()} renders the condition back in the platform's
 * syntax; parsing that text yields an equal tree.
 */
public sealed interface Expression {

    /** {@code true} or {@code false}. */
    record Literal(boolean value) implements Expression {
        @Override
        public String toString() {
            return Boolean.toString(value);
        }
    }

    /** {@code !operand}. */
    record Not(Expression operand) implements Expression {
        public Not {
            Objects.requireNonNull(operand, "operand");
        }

        @Override
        public String toString() {
            return "!" + wrap(operand);
        }
    }

    /** {@code left && right}. */
    record And(Expression left, Expression right) implements Expression {
        public And {
            Objects.requireNonNull(left, "left");
            Objects.requireNonNull(right, "right");
        }

        @Override
        public String toString() {
            return wrap(left) + " && " + wrap(right);
        }
    }

    /** {@code left || right}. */
    record Or(Expression left, Expression right) implements Expression {
        public Or {
            Objects.requireNonNull(left, "left");
            Objects.requireNonNull(right, "right");
        }

        @Override
        public String toString() {
            return wrap(left) + " || " + wrap(right);
        }
    }

    /**
     * A call of a catalogue function. The arguments are flattened: {@code f({'a','b'})} and {@code f('a','b')} both
     * carry {@code [a, b]}.
     *
     * @param function the function
     * @param values   its string arguments, in order
     */
    record Call(FilterFunction function, List<String> values) implements Expression {
        public Call {
            Objects.requireNonNull(function, "function");
            values = List.copyOf(values);
        }

        @Override
        public String toString() {
            if (function.arity() == FilterFunction.Arity.NONE) {
                return function.functionName() + "()";
            }
            return function.functionName() + "({" + values.stream().map(Expression::quote)
                    .collect(Collectors.joining(",")) + "})";
        }
    }

    /** A string literal in the platform's syntax: single quotes, an embedded quote doubled. */
    static String quote(String value) {
        return "'" + value.replace("'", "''") + "'";
    }

    private static String wrap(Expression e) {
        return e instanceof Literal || e instanceof Call || e instanceof Not ? e.toString() : "(" + e + ")";
    }
}
