package io.changestream.logs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.changestream.topics.model.PipelineRunStatus;
import io.changestream.topics.model.PipelineState;
import org.junit.jupiter.api.Test;

class RunStateTest {

    private static RunState of(PipelineState state) {
        return RunState.of(new PipelineRunStatus("p", "r", state, null, null, 1));
    }

    @Test
    void terminalStatesAreFinishedQueuedAndRunningAreRunningNoRowIsUnknown() {
        assertEquals(RunState.RUNNING, of(PipelineState.QUEUED));
        assertEquals(RunState.RUNNING, of(PipelineState.RUNNING));
        for (PipelineState s : new PipelineState[] {PipelineState.SUCCESS, PipelineState.FAILED,
            PipelineState.PARTIAL_SUCCESS, PipelineState.STOPPED}) {
            assertEquals(RunState.FINISHED, of(s), s.name());
        }
        assertEquals(RunState.UNKNOWN, RunState.of(null));
    }
}
