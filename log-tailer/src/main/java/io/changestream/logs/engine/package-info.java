/**
 * The streaming engine: one {@link io.changestream.logs.engine.RunTailer} per (source, pipeline, run), shared and
 * reference-counted by the {@link io.changestream.logs.engine.TailerManager}, fanning chunks out to
 * {@link io.changestream.logs.engine.Viewer}s. Transport-free: viewers write to a
 * {@link io.changestream.logs.engine.ViewerSink}. Time comes from a {@link io.changestream.logs.engine.Ticker}.
 */
package io.changestream.logs.engine;
