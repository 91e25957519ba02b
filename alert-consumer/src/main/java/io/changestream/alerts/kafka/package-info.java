/** Kafka client plumbing the service's parts share: an admin client from the service's client properties. */
package io.changestream.alerts.kafka;
