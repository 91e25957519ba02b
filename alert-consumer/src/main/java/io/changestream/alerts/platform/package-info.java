/**
 * The metadata platform's REST API as alert-consumer reads it: where it is and how to authenticate
 * ({@link io.changestream.alerts.platform.PlatformSettings}), the users and teams e-mail receivers resolve to
 * ({@link io.changestream.alerts.platform.PlatformDirectory}), and the failure of an unreachable platform. Used by
 * the e-mail destination and by failure impact; depends on nothing else of the service.
 */
package io.changestream.alerts.platform;
