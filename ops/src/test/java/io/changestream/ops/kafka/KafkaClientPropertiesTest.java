package io.changestream.ops.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.ops.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientPropertiesTest {

    @Test
    void environmentVariablesBecomeClientProperties() {
        Map<String, String> env = Map.of(
                "CHANGESTREAM_KAFKA_BOOTSTRAP_SERVERS", "k:9093",
                "CHANGESTREAM_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "CHANGESTREAM_KAFKA_SASL_JAAS_CONFIG", "x required password=\"p\";",
                "PATH", "/bin");
        KafkaClientProperties p = KafkaClientProperties.resolve(null, env, null);
        assertEquals(Map.of("bootstrap.servers", "k:9093", "security.protocol", "SASL_SSL",
                "sasl.jaas.config", "x required password=\"p\";"), p.properties());
    }

    @Test
    void fileThenEnvironmentThenOptionWin(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(file, "bootstrap.servers=file:1\nsasl.mechanism=PLAIN\nssl.truststore.password=s3cret\n");
        KafkaClientProperties p = KafkaClientProperties.resolve(file,
                Map.of("CHANGESTREAM_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512"), "opt:2");
        assertEquals("opt:2", p.bootstrapServers());
        assertEquals("SCRAM-SHA-512", p.properties().get("sasl.mechanism"));
        assertEquals(io.changestream.settings.SecretKeys.MASK, p.masked().get("ssl.truststore.password"));
        assertTrue(!p.toString().contains("s3cret"), p.toString());
    }

    @Test
    void missingBootstrapOrFileIsAUsageError(@TempDir Path dir) {
        assertThrows(UsageException.class, () -> KafkaClientProperties.resolve(null, Map.of(), null));
        assertThrows(UsageException.class,
                () -> KafkaClientProperties.resolve(dir.resolve("nope"), Map.of(), "x:1"));
    }
}
