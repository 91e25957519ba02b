/**
 * The {@code consumer} benchmark ({@code ops/bench consumer}): the consumer-runtime against Confluent Parallel
 * Consumer on an I/O-bound load, and against a bare {@code KafkaConsumer} poll loop on a no-op load, on one
 * pre-filled topic of an in-JVM broker, each contender in a fresh consumer group.
 */
package io.changestream.bench.consumer;
