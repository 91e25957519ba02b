package io.changestream.cdc.transform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.serde.Json;
import org.junit.jupiter.api.Test;

/** A row whose mapping throws unexpectedly is dead-lettered with the exception type, never with its message. */
class RowMapperFailureTest {

    @Test
    void anUnexpectedMappingFailureBecomesADeadLetterWithoutTheRowText() throws Exception {
        RowMapper mapper = new RowMapper(TransformSettings.defaults());
        CapturedRow row = new CapturedRow("public.change_event", "change_event", "c", 42L,
                "{\"id\":\"e-1\",\"password\":\"hunter2\"}", null, null, "0/16B3748", 1_000L, 1_005L);

        Mapping mapping = mapper.failed(row, new IllegalStateException("could not write {\"password\":\"hunter2\"}"));

        assertEquals(RowOutcome.DEAD_LETTERED, mapping.outcome());
        assertEquals("cs.cdc-dlq", mapping.topic());
        var letter = Json.mapper().readTree(mapping.value());
        assertTrue(letter.path("reason").asText().startsWith("mapping failed: java.lang.IllegalStateException at "),
                letter.toString());
        assertFalse(letter.path("reason").asText().contains("hunter2"), "the message may quote the row");
        assertEquals("0/16B3748", letter.path("logPosition").asText());
    }
}
