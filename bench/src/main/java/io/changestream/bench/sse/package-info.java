/**
 * The {@code sse} benchmark ({@code ops/bench.d/sse}): {@link io.changestream.bench.sse.SseBenchServer} runs the
 * log-tailer in one JVM, {@link io.changestream.bench.sse.SseBenchClient} appends to the runs and holds the viewers
 * in another (the open-files limit is per process).
 */
package io.changestream.bench.sse;
