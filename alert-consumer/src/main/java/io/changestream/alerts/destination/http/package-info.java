/**
 * The HTTP transport every HTTP destination sends through: one client per settings, per-request deadlines, redirects
 * refused, private addresses guarded, results classified.
 */
package io.changestream.alerts.destination.http;
