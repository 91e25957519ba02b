package io.changestream.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeConfigTest {

    private static final Map<String, Object> KAFKA = Map.of("bootstrap.servers", "localhost:9092", "group.id", "g");

    @Test
    void toStringMasksEveryKafkaValueThatCanBeASecret() {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
                + "password=\"s3cret-pw\";";
        RuntimeConfig c = RuntimeConfig.builder(List.of("t"), Map.of("bootstrap.servers", "b:9092", "group.id", "g",
                "sasl.jaas.config", jaas, "ssl.keystore.password", "ks-pass", "basic.auth.user.info", "u:pw-9")).build();
        String text = c.toString();
        assertTrue(text.contains("bootstrap.servers=b:9092") && text.contains("group.id=g"), text);
        assertTrue(text.contains("sasl.jaas.config=****") && text.contains("ssl.keystore.password=****"), text);
        assertTrue(!text.contains("s3cret-pw") && !text.contains("ks-pass"), text);
        assertTrue(!text.contains("pw-9"), "a property no name rule knows is masked too: " + text);
    }

    @Test
    void builderStartsFromTheDocumentedDefaults() {
        RuntimeConfig c = RuntimeConfig.builder(List.of("t"), KAFKA).build();
        assertEquals(RuntimeConfig.LANES.defaultOrFail(), c.lanes());
        assertEquals(KeyAssignment.LEAST_LOADED, c.keyAssignment());
        assertEquals(RuntimeConfig.LANE_CAPACITY.defaultOrFail(), c.laneCapacity());
        assertEquals(Duration.ofSeconds(30), c.processingTimeout());
        assertEquals("g", c.groupId());
    }

    @Test
    void fromReadsRuntimeKeysAndKafkaPropertiesWithIsoOrMillisecondDurations() {
        RuntimeConfig c = RuntimeConfig.from(Map.of(
                "runtime.topics", "a, b",
                "runtime.kafka.bootstrap.servers", "h:1",
                "runtime.kafka.group.id", "alerts",
                "runtime.lanes", "64",
                "runtime.keyAssignment", "HASH",
                "runtime.processingTimeout", "PT5S",
                "runtime.commitInterval", "250",
                "runtime.maxCalls", "200",
                "runtime.maxBufferedBytes", "1048576",
                "runtime.consumerRestartBackoff", "PT2S"));
        assertEquals(List.of("a", "b"), c.topics());
        assertEquals("h:1", c.kafka().get("bootstrap.servers"));
        assertEquals(64, c.lanes());
        assertEquals(KeyAssignment.HASH, c.keyAssignment());
        assertEquals(Duration.ofSeconds(5), c.processingTimeout());
        assertEquals(Duration.ofMillis(250), c.commitInterval());
        assertEquals(RuntimeConfig.MAX_ATTEMPTS.defaultOrFail(), c.maxAttempts());
        assertEquals(200, c.maxCalls());
        assertEquals(RuntimeConfig.MAX_CALLS_PER_LANE.defaultOrFail(), c.maxCallsPerLane());
        assertEquals(1_048_576L, c.maxBufferedBytes());
        assertEquals(Duration.ofSeconds(2), c.consumerRestartBackoff());
        assertEquals(RuntimeConfig.CONSUMER_MAX_RESTARTS.defaultOrFail(), c.consumerMaxRestarts());
        assertEquals(Duration.ofMinutes(1), c.statsLogInterval());
    }

    @Test
    void invalidSettingsAreRefusedWithTheSettingNamed() {
        assertMessage("lanes", () -> RuntimeConfig.builder(List.of("t"), KAFKA).lanes(0).build());
        assertMessage("maxCallsPerLane", () -> RuntimeConfig.builder(List.of("t"), KAFKA).maxCallsPerLane(0).build());
        assertMessage("maxBufferedBytes", () -> RuntimeConfig.builder(List.of("t"), KAFKA).maxBufferedBytes(10).build());
        assertMessage("consumerMaxRestarts", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .consumerMaxRestarts(-1).build());
        assertMessage("jitter", () -> RuntimeConfig.builder(List.of("t"), KAFKA).jitter(1.0).build());
        assertMessage("statsLogInterval", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .statsLogInterval(Duration.ofMillis(10)).build());
        assertEquals(Duration.ZERO, RuntimeConfig.builder(List.of("t"), KAFKA).statsLogInterval(Duration.ZERO).build()
                .statsLogInterval(), "zero: no stats line");
        assertMessage("maxBackoff", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .initialBackoff(Duration.ofSeconds(10)).maxBackoff(Duration.ofSeconds(1)).build());
        assertMessage("processingTimeout", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .processingTimeout(Duration.ZERO).build());
        assertMessage("group.id", () -> RuntimeConfig.builder(List.of("t"), Map.of("bootstrap.servers", "h:1"))
                .build());
        assertMessage("enable.auto.commit", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .kafka("enable.auto.commit", "true").build());
        assertMessage("partition.assignment.strategy", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .kafka("partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor").build());
        assertMessage("max.poll.interval.ms", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .kafka("max.poll.interval.ms", 5_000).revokeTimeout(Duration.ofSeconds(10)).build());
        assertMessage("topics", () -> RuntimeConfig.builder(List.of(), KAFKA).build());
        assertMessage("runtime.lanes", () -> RuntimeConfig.from(Map.of("runtime.topics", "t",
                "runtime.kafka.bootstrap.servers", "h:1", "runtime.kafka.group.id", "g", "runtime.lanes", "many")));
    }

    @Test
    void classicGroupsDetectAFailureWithinSixSecondsUnlessTheKafkaPropertiesSayOtherwise() {
        RuntimeConfig c = RuntimeConfig.builder(List.of("t"), KAFKA).build();
        assertTrue(c.classicProtocol());
        assertEquals(RuntimeConfig.DEFAULT_SESSION_TIMEOUT_MS, c.kafka().get("session.timeout.ms"));
        assertEquals(RuntimeConfig.DEFAULT_HEARTBEAT_INTERVAL_MS, c.kafka().get("heartbeat.interval.ms"));
        assertTrue(c.toString().contains("session.timeout.ms=6000"), c.toString());
        RuntimeConfig tuned = RuntimeConfig.from(Map.of("runtime.topics", "t", "runtime.kafka.bootstrap.servers", "h:1",
                "runtime.kafka.group.id", "g", "runtime.kafka.session.timeout.ms", "45000"));
        assertEquals("45000", tuned.kafka().get("session.timeout.ms"));
        assertEquals(RuntimeConfig.DEFAULT_HEARTBEAT_INTERVAL_MS, tuned.kafka().get("heartbeat.interval.ms"));
        assertMessage("heartbeat.interval.ms", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .kafka("session.timeout.ms", 2_000).build());
        assertMessage("session.timeout.ms", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .kafka("session.timeout.ms", "soon").build());
    }

    @Test
    void theConsumerProtocolLeavesSessionHeartbeatAndAssignorToTheBroker() {
        RuntimeConfig c = RuntimeConfig.builder(List.of("t"), KAFKA).kafka("group.protocol", "consumer").build();
        assertTrue(!c.classicProtocol());
        assertTrue(!c.kafka().containsKey("session.timeout.ms") && !c.kafka().containsKey("heartbeat.interval.ms"),
                c.kafka().toString());
        for (String key : List.of("session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy")) {
            assertMessage(key, () -> RuntimeConfig.builder(List.of("t"), KAFKA).kafka("group.protocol", "CONSUMER")
                    .kafka(key, "org.apache.kafka.clients.consumer.CooperativeStickyAssignor").build());
        }
    }

    @Test
    void staticMembershipGivesEachConsumerThreadItsOwnInstanceId() {
        RuntimeConfig none = RuntimeConfig.builder(List.of("t"), KAFKA).build();
        assertTrue(none.groupInstanceId(0, () -> "h").isEmpty());
        RuntimeConfig host = RuntimeConfig.from(Map.of("runtime.topics", "t", "runtime.kafka.bootstrap.servers", "h:1",
                "runtime.kafka.group.id", "g", "runtime.groupInstanceId", "alerts-" + RuntimeConfig.HOST_NAME));
        assertEquals("alerts-pod-7-0", host.groupInstanceId(0, () -> "pod-7").orElseThrow());
        assertEquals("alerts-pod-7-3", host.groupInstanceId(3, () -> "pod-7").orElseThrow());
        assertEquals("a1-0", RuntimeConfig.builder(List.of("t"), KAFKA).groupInstanceId(" a1 ").build()
                .groupInstanceId(0, () -> "unused").orElseThrow());
        assertMessage("groupInstanceId", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .kafka("group.instance.id", "same-for-every-thread").build());
        assertMessage("groupInstanceId", () -> RuntimeConfig.builder(List.of("t"), KAFKA)
                .groupInstanceId("has space").build());
    }

    private static void assertMessage(String setting, Runnable build) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
        assertTrue(e.getMessage().contains(setting), () -> "message names " + setting + ": " + e.getMessage());
    }
}
