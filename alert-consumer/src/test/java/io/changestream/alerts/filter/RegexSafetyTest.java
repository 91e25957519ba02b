package io.changestream.alerts.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.ChangeEvent;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 12: user regexes in filters run in linear time, within bounds, and bad ones are refused with a position. */
class RegexSafetyTest {

    private static ChangeEvent withFqn(String fqn) {
        return Events.event("entityUpdated", "table", "alice", "{\"fullyQualifiedName\":\"" + fqn + "\"}", null);
    }

    @Test
    void thePolynomialBacktrackingPatternOnALongFqnCompletesInBoundedTime() {
        // java.util.regex needs ~2 s for this pattern on 30 characters and grows with the 10th power of the length
        FilterCondition condition = FilterCondition.compile("matchAnyEntityFqn({'(.*.){10}Z'})");
        String fqn = "svc.db." + "a".repeat(3_000);
        boolean[] matched = new boolean[2];
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
            for (int i = 0; i < 20; i++) {
                matched[0] |= condition.test(withFqn(fqn));
            }
            matched[1] = condition.test(withFqn(fqn + "Z"));
        });
        assertFalse(matched[0]);
        assertTrue(matched[1], "the same pattern still matches what it should");
    }

    @Test
    void aPatternTheEngineRejectsIsASyntaxErrorNamingThePosition() {
        String condition = "matchAnySource({'table'}) && matchAnyEntityFqn({'svc\\.(orders'})";
        FilterSyntaxException e = assertThrows(FilterSyntaxException.class, () -> FilterCondition.compile(condition));
        assertEquals(condition.indexOf("matchAnyEntityFqn"), e.position());
        assertTrue(e.getMessage().contains("missing closing )"), e.getMessage());
        assertTrue(e.getMessage().contains("at position " + e.position()), e.getMessage());

        FilterSyntaxException backreference = assertThrows(FilterSyntaxException.class,
                () -> FilterCondition.compile("matchAnyEntityFqn({'(a)\\1'})"));
        assertTrue(backreference.getMessage().contains("pattern offset 3"), backreference.getMessage());
    }

    @Test
    void patternLengthAndCompiledSizeAreBounded() {
        FilterSyntaxException tooLong = assertThrows(FilterSyntaxException.class,
                () -> FilterCondition.compile("matchAnyEntityFqn({'" + "a".repeat(1_025) + "'})"));
        assertTrue(tooLong.getMessage().contains("filter.maxPatternLength"), tooLong.getMessage());
        // 34 characters that compile to 10^12 instructions: refused before RE2/J would exhaust the heap compiling it
        for (String nested : new String[] {"((((a{1000}){1000}){1000}){1000})", "(x{500}){20}", "(?i)(\\pL{999}){999}",
                "[a-z]{1000}[0-9]{1000}(b{999}){9}", "(\\Q" + "x".repeat(100) + "\\E){999}"}) {
            FilterSyntaxException tooBig = assertThrows(FilterSyntaxException.class,
                    () -> FilterCondition.compile("matchAnyEntityFqn({'" + nested + "'})"), nested);
            assertTrue(tooBig.getMessage().contains("filter.maxPatternProgram"), tooBig.getMessage());
        }
        FilterCondition.compile("matchAnyEntityFqn({'[a-z]{1000}[0-9]{1000}'})");
        FilterCondition.compile("matchAnyEntityFqn({'^svc\\.(db|warehouse)\\.[^.]+\\.orders_[0-9]{4}$'})");
    }

    @Test
    void anFqnLongerThanTheSubjectBoundIsAnEvaluationErrorNotALongMatch() {
        FilterSettings small = FilterSettings.DEFAULTS.withLimits(new FilterLimits(65_536, 64, 1_024, 10_000, 100));
        FilterCondition condition = FilterCondition.compile("matchAnyEntityFqn({'orders'})", small);
        assertTrue(condition.test(withFqn("svc.db.sales.orders")));
        FilterEvaluationException e = assertThrows(FilterEvaluationException.class,
                () -> condition.test(withFqn("svc." + "x".repeat(200))));
        assertTrue(e.getMessage().contains("filter.maxSubjectLength"), e.getMessage());
    }
}
