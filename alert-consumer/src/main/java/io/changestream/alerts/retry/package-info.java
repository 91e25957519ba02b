/**
 * The retry path (decision 1120): pairs that must wait longer than the inline budget, and pairs of a suspended
 * destination, leave the commit path for {@code alert-retry} (keyed by destination); their own consumer runtime
 * delivers them in order per destination; suspension state is group-wide on {@code alert-destinations}.
 * {@link io.changestream.alerts.retry.RetryService} is the entry point; {@link io.changestream.alerts.retry.RetryPath}
 * is the main path's hook ({@link io.changestream.alerts.pipeline.LongRetries}).
 */
package io.changestream.alerts.retry;
