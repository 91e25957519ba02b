/**
 * Real components for integration tests: an in-JVM single-node KRaft Kafka broker, an embedded
 * PostgreSQL with logical decoding, and a MariaDB server with a ROW binlog. Each starts in seconds,
 * cleans up after itself and fails loudly when it cannot start; nothing here falls back silently.
 */
package io.changestream.testkit;
