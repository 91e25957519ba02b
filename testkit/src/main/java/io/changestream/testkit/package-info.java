/**
 * Real components for integration tests: an in-JVM single-node KRaft Kafka broker, an embedded
 * PostgreSQL with logical decoding, and a MariaDB server with a ROW binlog. Each starts in seconds,
 * cleans up after itself and fails loudly when it cannot start; nothing here falls back silently. Beside them the
 * small pieces every module's tests share: a hand-moved {@code TestClock}, a {@code LoopbackHttpServer} under the
 * local receivers, the README settings-table check of the {@code ConfigReferenceTest}s, and what the failure-impact
 * tests of the alert service and of the shipped jar share: a {@code PlatformStandIn} of the platform's lineage,
 * entity and user APIs with its {@code ImpactEstate}, and the official {@code OpenLineageSchemas}.
 */
package io.changestream.testkit;
