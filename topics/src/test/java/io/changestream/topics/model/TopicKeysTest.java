package io.changestream.topics.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.changestream.topics.Samples;
import org.junit.jupiter.api.Test;

class TopicKeysTest {

    @Test
    void compositeKeysJoinWithSlash() {
        assertEquals("svc.pipe/run-1", TopicKeys.pipelineRun("svc.pipe", "run-1"));
        assertEquals("g/s/e", TopicKeys.ledger("g", "s", "e"));
        assertEquals("s/e", TopicKeys.dlq("s", "e"));
        assertEquals("public.change_event/0/16B3748", TopicKeys.cdcDeadLetter("public.change_event", "0/16B3748"));
    }

    @Test
    void recordsKnowTheirKeys() {
        var records = Samples.oneOfEach();
        ChangeEvent event = (ChangeEvent) records.get(0);
        assertEquals("t-1", TopicKeys.change(event));
        assertEquals("svc.pipe/run-1", ((PipelineRunStatus) records.get(1)).key());
        assertEquals("cs-alerts/sub-1/e-1", ((DeliveryRecord) records.get(3)).key());
        assertEquals("sub-1/e-1", ((FailedEvent) records.get(4)).key());
        assertEquals("svc.pipe/run-1", ((LogChunk) records.get(5)).key());
    }

    @Test
    void twoStatusUpdatesInOneStateAreTwoEventsAndARepeatIsOne() {
        PipelineRunStatus first = new PipelineRunStatus("svc.pipe", "run-1", PipelineState.RUNNING, 1L, null, 1_000);
        PipelineRunStatus second = new PipelineRunStatus("svc.pipe", "run-1", PipelineState.RUNNING, 1L, null, 2_000);
        assertEquals("svc.pipe/run-1/running/1000", first.eventId());
        org.junit.jupiter.api.Assertions.assertNotEquals(first.eventId(), second.eventId(),
                "a ledger keyed by the event id must not take the second update for the first");
        assertEquals(first.eventId(), new PipelineRunStatus("svc.pipe", "run-1", PipelineState.RUNNING, 1L, null,
                1_000).eventId(), "a repeat of one row keeps its id");
        assertEquals(first.key(), second.key(), "one run, one compaction key");
    }

    @Test
    void pipelineRunKeySplitsAtTheLastSeparator() {
        assertArrayEquals(new String[] {"svc.\"a/b\".pipe", "run-1"},
                TopicKeys.splitPipelineRun(TopicKeys.pipelineRun("svc.\"a/b\".pipe", "run-1")));
        assertThrows(IllegalArgumentException.class, () -> TopicKeys.splitPipelineRun("no-separator"));
        assertThrows(NullPointerException.class, () -> TopicKeys.dlq(null, "e"));
    }
}
