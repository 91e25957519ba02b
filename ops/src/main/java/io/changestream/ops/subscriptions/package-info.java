/** Subscriptions from JSON files, managed through the alert service's admin API. */
package io.changestream.ops.subscriptions;
