package io.changestream.state.bench;

import java.util.ArrayList;
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
 * processes on a shared machine hits both alike. Prints a table per round (wall-clock pairs/s as JMH scores them,
 * and pairs per CPU-second of the benchmark thread, which other load does not lower), then the machine-readable
 * {@code RESULT} line last, from each side's best wall-clock round (other load only ever slows a run down).
 */
public final class StateManagerBench {

    /** Rounds of (StateManager fork, baseline fork). */
    static final int ROUNDS = 3;
    private static final int WARMUP_ITERATIONS = 3;
    private static final int MEASUREMENT_ITERATIONS = 3;
    private static final TimeValue ITERATION_TIME = TimeValue.seconds(1);
    private static final String ROW = "%-6s %,14.0f %,14.0f %6.2f   %,14.0f %,14.0f %6.2f%n";

    /** One fork's figures. */
    private record Score(double pairsPerSecond, double pairsPerCpuSecond) {
    }

    private StateManagerBench() {
    }

    public static void main(String[] args) throws RunnerException {
        System.out.printf(Locale.ROOT, "track+done pairs, %d in flight completing in random order, committable every %d"
                + " pairs, 1 thread; baseline: ConcurrentSkipListSet (Parallel Consumer)%n",
                StateManagerBenchmark.IN_FLIGHT, StateManagerBenchmark.COMMIT_EVERY);
        System.out.printf(Locale.ROOT, "%-6s %14s %14s %6s   %14s %14s %6s%n", "round", "pairs/s", "baseline/s",
                "ratio", "pairs/cpu-s", "baseline/cpu-s", "ratio");
        List<Score[]> rounds = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            Score ours = run("stateManager");
            Score baseline = run("skipListBaseline");
            rounds.add(new Score[] {ours, baseline});
            row(Integer.toString(round), ours, baseline);
        }
        Score bestOurs = best(rounds, 0);
        Score bestBaseline = best(rounds, 1);
        row("best", bestOurs, bestBaseline);
        System.out.printf(Locale.ROOT,
                "RESULT {\"scenario\":\"statemanager\",\"pairs_per_sec\":%d,\"baseline_pairs_per_sec\":%d,"
                        + "\"ratio\":%.2f}%n", Math.round(bestOurs.pairsPerSecond()),
                Math.round(bestBaseline.pairsPerSecond()), bestOurs.pairsPerSecond() / bestBaseline.pairsPerSecond());
    }

    private static void row(String label, Score ours, Score baseline) {
        System.out.printf(Locale.ROOT, ROW, label, ours.pairsPerSecond(), baseline.pairsPerSecond(),
                ours.pairsPerSecond() / baseline.pairsPerSecond(), ours.pairsPerCpuSecond(),
                baseline.pairsPerCpuSecond(), ours.pairsPerCpuSecond() / baseline.pairsPerCpuSecond());
    }

    private static Score best(List<Score[]> rounds, int side) {
        return new Score(
                rounds.stream().mapToDouble(r -> r[side].pairsPerSecond()).max().orElseThrow(),
                rounds.stream().mapToDouble(r -> r[side].pairsPerCpuSecond()).max().orElseThrow());
    }

    /** One forked JMH run of one benchmark method. */
    private static Score run(String method) throws RunnerException {
        Options options = new OptionsBuilder()
                .include(StateManagerBenchmark.class.getName() + "\\." + method + "$")
                .forks(1)
                .warmupIterations(WARMUP_ITERATIONS)
                .measurementIterations(MEASUREMENT_ITERATIONS)
                .warmupTime(ITERATION_TIME)
                .measurementTime(ITERATION_TIME)
                .verbosity(VerboseMode.SILENT)
                .build();
        RunResult result = new Runner(options).run().stream()
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("benchmark " + method + " produced no result"));
        // the aux counters are totals over the measurement iterations
        double pairs = result.getSecondaryResults().get("pairs").getScore();
        double cpuNanos = result.getSecondaryResults().get("cpuNanos").getScore();
        return new Score(result.getPrimaryResult().getScore(), pairs / (cpuNanos / 1e9));
    }
}
