package io.changestream.alerts.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class FilterParserProperties {

    private static final List<String> ATOMS = List.of("matchAnySource", "isBot", "(", ")", "{", "}", "'a'", "'",
            "\"b\"", ",", "&&", "||", "!", "&", "|", "true", "false", "and", "or", "not", " ", "matchAnyEntityFqn",
            "'['", "T(java.lang.System)", "\u0000", "\n", "''", "x", "matchAnyEntityId");

    @Property(tries = 2_000, seed = "42")
    void parserThrowsOnlyTheTypedException(@ForAll("soup") String condition) {
        try {
            FilterCondition.compile(condition);
        } catch (FilterSyntaxException expected) {
            // the only failure allowed
        }
    }

    @Property(tries = 2_000, seed = "7")
    void arbitraryTextThrowsOnlyTheTypedException(@ForAll String condition) {
        try {
            FilterCondition.compile(condition);
        } catch (FilterSyntaxException expected) {
            // the only failure allowed
        }
    }

    @Property(tries = 500, seed = "11")
    void renderedConditionsParseBackToTheSameTree(@ForAll("expressions") Expression expression) {
        Expression reparsed = FilterCondition.compile(expression.toString()).expression();
        assertEquals(expression, reparsed);
    }

    @Provide
    Arbitrary<String> soup() {
        return Arbitraries.of(ATOMS).list().ofMaxSize(25).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<Expression> expressions() {
        return expression(4);
    }

    private Arbitrary<Expression> expression(int depth) {
        Arbitrary<Expression> leaf = Arbitraries.oneOf(
                Arbitraries.of(true, false).map(Expression.Literal::new),
                Arbitraries.just(new Expression.Call(FilterFunction.IS_BOT, List.of())),
                Arbitraries.strings().withChars("ab'\" {},&|!").ofMaxLength(6).list().ofMinSize(0).ofMaxSize(3)
                        .map(values -> new Expression.Call(FilterFunction.MATCH_UPDATED_BY, values)));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<Expression> sub = Arbitraries.lazy(() -> expression(depth - 1));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, leaf),
                net.jqwik.api.Tuple.of(1, sub.map(Expression.Not::new)),
                net.jqwik.api.Tuple.of(1, Combinators.combine(sub, sub).as(Expression.And::new)),
                net.jqwik.api.Tuple.of(1, Combinators.combine(sub, sub).as(Expression.Or::new)));
    }
}
