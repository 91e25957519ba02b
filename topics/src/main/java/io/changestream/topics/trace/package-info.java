/**
 * The W3C Trace Context carried from capture to the webhook: {@link io.changestream.topics.trace.TraceContext}, the
 * value of the {@code traceparent} record and HTTP header (no tracing SDK; ids are generated here).
 */
package io.changestream.topics.trace;
