/**
 * What the alert benchmarks ({@code alerts-capacity}, {@code e2e}, {@code dead-receiver}) share: one local alert
 * service's topics, settings and admin REST calls.
 */
package io.changestream.bench.alerts;
