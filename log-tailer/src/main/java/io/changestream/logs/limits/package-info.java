/**
 * Limits per caller: how many stream connections and distinct runs one bearer token, and one client address, may
 * hold at once ({@link io.changestream.logs.limits.CallerLimits}, enforced by
 * {@link io.changestream.logs.limits.CallerQuotas} before a stream is committed), so one caller cannot take the
 * server's whole connection and run caps.
 */
package io.changestream.logs.limits;
