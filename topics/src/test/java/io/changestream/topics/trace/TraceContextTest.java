package io.changestream.topics.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The W3C {@code traceparent} format: what is written, what is read, what is refused. */
class TraceContextTest {

    private static final String SPEC_EXAMPLE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aNewTraceIsVersion00SampledWithRandomIds() {
        TraceContext a = TraceContext.newTrace();
        TraceContext b = TraceContext.newTrace();
        assertTrue(a.format().matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01"), a.format());
        assertNotEquals(a.traceId(), b.traceId());
        assertEquals(Optional.of(a), TraceContext.parse(a.format()));
    }

    @Test
    void theSpecExampleRoundTrips() {
        TraceContext parsed = TraceContext.parse(SPEC_EXAMPLE.getBytes(StandardCharsets.UTF_8)).orElseThrow();
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", parsed.traceId());
        assertEquals("00f067aa0ba902b7", parsed.spanId());
        assertEquals(TraceContext.SAMPLED, parsed.flags());
        assertEquals(SPEC_EXAMPLE, parsed.format());
    }

    @Test
    void aChildKeepsTheTraceAndFlagsWithANewSpan() {
        TraceContext parent = TraceContext.parse(SPEC_EXAMPLE).orElseThrow();
        TraceContext child = parent.child();
        assertEquals(parent.traceId(), child.traceId());
        assertEquals(parent.flags(), child.flags());
        assertNotEquals(parent.spanId(), child.spanId());
    }

    @Test
    void aHigherVersionIsReadByItsFirstFields() {
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736",
                TraceContext.parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future").orElseThrow()
                        .traceId());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "garbage", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x"})
    void malformedValuesAreRefused(String value) {
        assertEquals(Optional.empty(), TraceContext.parse(value));
        assertNotEquals(value, TraceContext.continueOrStart(value.getBytes(StandardCharsets.UTF_8)).format());
    }

    @Test
    void nothingStartsANewTraceAndInvalidIdsAreRefusedByTheConstructor() {
        assertEquals(Optional.empty(), TraceContext.parse((byte[]) null));
        assertTrue(TraceContext.continueOrStart(null).format().startsWith("00-"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TraceContext("abc", "00f067aa0ba902b7", 1));
        assertTrue(e.getMessage().contains("traceId"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TraceContext(
                "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 256));
    }
}
