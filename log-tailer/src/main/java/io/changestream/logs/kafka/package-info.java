/**
 * Kafka around the engine: {@link io.changestream.logs.kafka.KafkaViews} (read-only Kafka Streams global stores over
 * {@code pipeline-status} and an index of {@code log-chunks}), {@link io.changestream.logs.kafka.KafkaChunkPublisher}
 * (every chunk read goes to {@code log-chunks}) and {@link io.changestream.logs.kafka.KafkaReplayer} (exact replay
 * from a cursor on any server).
 */
package io.changestream.logs.kafka;
