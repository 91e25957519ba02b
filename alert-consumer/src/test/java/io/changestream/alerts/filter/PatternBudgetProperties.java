package io.changestream.alerts.filter;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The budget never under-estimates what RE2/J compiles (it is what keeps a pattern from exhausting the heap). */
class PatternBudgetProperties {

    @Provide
    Arbitrary<String> patterns() {
        Arbitrary<String> atoms = Arbitraries.of("a", ".", "[a-z]", "\\d", "\\pL", "(?i)b", "\\.", "[^.]");
        Arbitrary<String> repeats = Arbitraries.of("", "*", "+", "?", "{3}", "{2,5}", "{7,}", "{20}", "{0,9}");
        Arbitrary<String> piece = Arbitraries.recursive(
                () -> net.jqwik.api.Combinators.combine(atoms, repeats).as(String::concat),
                inner -> net.jqwik.api.Combinators.combine(inner.list().ofMinSize(1).ofMaxSize(3), repeats,
                        Arbitraries.of("", "|")).as((parts, repeat, bar) -> "(" + String.join(bar, parts) + ")"
                        + repeat), 4);
        return piece.list().ofMinSize(1).ofMaxSize(4).map(parts -> String.join("", parts));
    }

    @Property(tries = 2_000, seed = "12")
    void theEstimateIsAtLeastTheCompiledProgram(@ForAll("patterns") String pattern) {
        long estimate = PatternBudget.estimate(pattern, 20_000);
        if (estimate > 20_000) {
            return;
        }
        int actual;
        try {
            actual = Pattern.compile(pattern).programSize();
        } catch (PatternSyntaxException e) {
            return;
        }
        assertTrue(estimate >= actual, pattern + ": estimate " + estimate + " < program " + actual);
    }
}
