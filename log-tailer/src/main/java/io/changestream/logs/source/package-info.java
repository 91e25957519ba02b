/**
 * Where run logs are read from: a {@link io.changestream.logs.source.LogSource} per run with opaque, per-source
 * cursors — files under a storage root (line offsets) or a pipeline service's chunked HTTP log API
 * ({@code chunk:charsDelivered}). {@link io.changestream.logs.source.SourceResolver} picks one by where the bytes are.
 */
package io.changestream.logs.source;
