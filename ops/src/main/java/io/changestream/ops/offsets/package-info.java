/**
 * Consumer-group offsets: describe a group's lag and reset its committed offsets with the semantics of Kafka's
 * {@code kafka-consumer-groups --reset-offsets} ({@link io.changestream.ops.offsets.OffsetReset}).
 */
package io.changestream.ops.offsets;
