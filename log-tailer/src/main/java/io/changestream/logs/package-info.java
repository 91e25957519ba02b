/**
 * The log-tailer service: live ingestion logs over Server-Sent Events, compatible with the platform's
 * {@code …/logs/{fqn}/stream/{runId}} endpoint. {@link io.changestream.logs.LogTailerMain} starts it from a
 * {@link io.changestream.logs.LogTailerConfig}; {@link io.changestream.logs.LogTailerServer} wires the parts.
 */
package io.changestream.logs;
