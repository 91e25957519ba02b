/**
 * Topic provisioning with the Kafka Admin client: {@link io.changestream.topics.admin.TopicProvisioner} makes a
 * cluster match a {@link io.changestream.topics.TopicCatalog} (create, raise partitions, align configs) and says what
 * it changed in a {@link io.changestream.topics.admin.ProvisioningReport}.
 */
package io.changestream.topics.admin;
