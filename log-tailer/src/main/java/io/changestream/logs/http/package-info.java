/**
 * HTTP: the platform-compatible log endpoints ({@link io.changestream.logs.http.LogsApiServlet}: stream, last,
 * last/download) written as non-blocking servlet output ({@link io.changestream.logs.http.ServletSink}), bearer-token
 * auth and the pipeline registry that decides 404.
 */
package io.changestream.logs.http;
