/** Kafka client settings shared by every client the launcher creates, with secrets masked for printing. */
package io.changestream.ops.kafka;
