/**
 * JSON serdes for the records of {@code io.changestream.topics.model}: one shared Jackson configuration
 * ({@link io.changestream.topics.serde.Json}), a Kafka {@code Serde} per record type
 * ({@link io.changestream.topics.serde.JsonSerde}, {@link io.changestream.topics.serde.Serdes}) and the typed
 * {@link io.changestream.topics.serde.MalformedRecordException} for input that cannot become a record.
 */
package io.changestream.topics.serde;
