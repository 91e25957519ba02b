package io.changestream.state.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Entry point of {@code ops/bench statemanager}: runs {@link StateManagerBenchmark} under JMH in {@value #ROUNDS}
 * rounds, each round forking one JVM for the StateManager and then one for the baseline, so that load from other
 * processes on a shared machine hits both alike. Prints a table per round, then the machine-readable {@code RESULT}
 * line last, from each side's best round (other load only ever slows a run down).
 */
public final class StateManagerBench {

    /** Rounds of (StateManager fork, baseline fork). */
    static final int ROUNDS = 3;
    private static final int WARMUP_ITERATIONS = 3;
    private static final int MEASUREMENT_ITERATIONS = 3;
    private static final TimeValue ITERATION_TIME = TimeValue.seconds(1);

    private StateManagerBench() {
    }

    public static void main(String[] args) throws RunnerException {
        List<double[]> rounds = new ArrayList<>();
        System.out.printf(Locale.ROOT, "%-6s %16s %16s %7s   (track+done pairs/s, %d in flight, random completion,"
                + " committable every %d pairs, 1 thread)%n", "round", "stateManager", "skipListBaseline", "ratio",
                StateManagerBenchmark.IN_FLIGHT, StateManagerBenchmark.COMMIT_EVERY);
        for (int round = 1; round <= ROUNDS; round++) {
            double pairs = run("stateManager");
            double baseline = run("skipListBaseline");
            rounds.add(new double[] {pairs, baseline});
            System.out.printf(Locale.ROOT, "%-6d %,16.0f %,16.0f %7.2f%n", round, pairs, baseline, pairs / baseline);
        }
        double bestPairs = rounds.stream().mapToDouble(r -> r[0]).max().orElseThrow();
        double bestBaseline = rounds.stream().mapToDouble(r -> r[1]).max().orElseThrow();
        System.out.printf(Locale.ROOT, "%-6s %,16.0f %,16.0f %7.2f%n", "best", bestPairs, bestBaseline,
                bestPairs / bestBaseline);
        System.out.printf(Locale.ROOT,
                "RESULT {\"scenario\":\"statemanager\",\"pairs_per_sec\":%d,\"baseline_pairs_per_sec\":%d,"
                        + "\"ratio\":%.2f}%n", Math.round(bestPairs), Math.round(bestBaseline), bestPairs / bestBaseline);
    }

    /** One forked JMH run of one benchmark method; its mean pairs/s. */
    private static double run(String method) throws RunnerException {
        Options options = new OptionsBuilder()
                .include(StateManagerBenchmark.class.getName() + "\\." + method + "$")
                .forks(1)
                .warmupIterations(WARMUP_ITERATIONS)
                .measurementIterations(MEASUREMENT_ITERATIONS)
                .warmupTime(ITERATION_TIME)
                .measurementTime(ITERATION_TIME)
                .verbosity(VerboseMode.SILENT)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        return results.stream()
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("benchmark " + method + " produced no result"))
                .getPrimaryResult().getScore();
    }
}
