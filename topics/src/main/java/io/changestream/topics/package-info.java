/**
 * changestream's topic contracts: the {@link io.changestream.topics.TopicCatalog} names every topic with its
 * partitions, policies and key/value types. Values live in {@code model}, their JSON serdes in {@code serde}, topic
 * provisioning in {@code admin}. This module depends only on Kafka clients and Jackson.
 */
package io.changestream.topics;
