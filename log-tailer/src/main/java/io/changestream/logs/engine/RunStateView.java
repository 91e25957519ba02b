package io.changestream.logs.engine;

import java.util.Optional;

/**
 * Read-only view of run states and known pipelines (the {@code pipeline-status} topic). Called from poll threads and
 * request threads; implementations are thread-safe.
 */
public interface RunStateView {

    /** A view that knows nothing: every run is {@link RunState#UNKNOWN}. */
    RunStateView NONE = new RunStateView() {
        @Override
        public RunState state(String pipelineFqn, String runId) {
            return RunState.UNKNOWN;
        }

        @Override
        public boolean knowsPipeline(String pipelineFqn) {
            return false;
        }

        @Override
        public Optional<String> latestRun(String pipelineFqn) {
            return Optional.empty();
        }
    };

    /** The state of one run; may throw when the view cannot be read (the tailer then assumes RUNNING). */
    RunState state(String pipelineFqn, String runId);

    /** True when at least one status record exists for the pipeline. */
    boolean knowsPipeline(String pipelineFqn);

    /** The run with the newest status record, if any. */
    Optional<String> latestRun(String pipelineFqn);
}
