package io.changestream.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SettingsReaderTest {

    private static final Setting<Integer> PORT = Setting.integer("http.port").defaultsTo(8080).between(0, 65_535)
            .doc("HTTP port");
    private static final Setting<String> TOKEN = Setting.string("admin.bearerToken").required().doc("token");
    private static final Setting<Duration> TIMEOUT = Setting.duration("ledger.ackTimeout")
            .defaultsTo(Duration.ofSeconds(10)).positive();
    private static final Setting<Integer> ACTIVE_RUNS = Setting.integer("stream.maxActiveRuns").defaultsTo(100);
    private static final Setting<String> BOOTSTRAP = Setting.string("kafka.bootstrapServers")
            .alias("kafka.bootstrap.servers").defaultsTo("");
    private static final List<Setting<?>> ALL = List.of(PORT, TOKEN, TIMEOUT, ACTIVE_RUNS, BOOTSTRAP);

    @Test
    void valuesParseWithDefaultsAndBoundsNamingTheKey() {
        SettingsReader r = SettingsReader.of(Map.of("http.port", " 9191 ", "admin.bearerToken", "s3cr3t-token-value",
                "ledger.ackTimeout", "2500"));
        assertEquals(9191, r.get(PORT));
        assertEquals(Duration.ofMillis(2500), r.get(TIMEOUT), "milliseconds are a duration");
        assertEquals(100, r.get(ACTIVE_RUNS), "unset: the default");
        SettingException range = assertThrows(SettingException.class,
                () -> SettingsReader.of(Map.of("http.port", "70000")).get(PORT));
        assertEquals("http.port must be between 0 and 65535, was 70000", range.getMessage());
        SettingException parse = assertThrows(SettingException.class,
                () -> SettingsReader.of(Map.of("ledger.ackTimeout", "soon")).get(TIMEOUT));
        assertTrue(parse.getMessage().startsWith("ledger.ackTimeout does not parse: 'soon'"), parse.getMessage());
        SettingException missing = assertThrows(SettingException.class, () -> SettingsReader.of(Map.of()).get(TOKEN));
        assertEquals("admin.bearerToken is required", missing.getMessage());
        assertEquals("admin.bearerToken", missing.key());
    }

    @Test
    void aSecretNeverShowsInAnErrorOrAPrintedConfig() {
        Setting<Integer> pin = Setting.integer("smtp.password").between(0, 9);
        SettingException e = assertThrows(SettingException.class,
                () -> SettingsReader.of(Map.of("smtp.password", "12345")).get(pin));
        assertFalse(e.getMessage().contains("12345"), e.getMessage());
        SettingsReader r = SettingsReader.of(Map.of("admin.bearerToken", "s3cr3t-token-value"));
        String shown = ConfigText.describe(new Printed(r.get(TOKEN), r.get(PORT), r.get(TIMEOUT),
                Map.of("sasl.jaas.config", "s3cr3t-jaas", "bootstrap.servers", "k:9092")));
        assertEquals("Printed[bearerToken=" + SecretKeys.MASK + ", port=8080, ackTimeout=PT10S, kafka={bootstrap"
                + ".servers=k:9092, sasl.jaas.config=" + SecretKeys.MASK + "}]", shown);
        assertFalse(shown.contains("s3cr3t"), shown);
        assertEquals(Map.of("port", "8080", "kafka.sasl.jaas.config", SecretKeys.MASK, "kafka.bootstrap.servers",
                "k:9092", "bearerToken", SecretKeys.MASK, "ackTimeout", "PT10S"), ConfigText.flatten(
                new Printed("t", 8080, Duration.ofSeconds(10), Map.of("sasl.jaas.config", "x",
                        "bootstrap.servers", "k:9092"))));
    }

    private record Printed(String bearerToken, int port, Duration ackTimeout, Map<String, String> kafka) {
    }

    @Test
    void environmentThenSystemPropertiesOverrideTheFileInEveryConvention() {
        Properties system = new Properties();
        system.setProperty("log.tailer.http.port", "7000");
        system.setProperty("other.http.port", "1");
        Map<String, String> env = Map.of("LOG_TAILER_HTTP_PORT", "9191", "LOG_TAILER_ADMIN_BEARER_TOKEN", "from-env",
                "LOG_TAILER_STREAM_MAXACTIVERUNS", "400", "LOG_TAILER_KAFKA_SASL_JAAS_CONFIG", "jaas",
                "LOG_TAILER_KAFKA_BOOTSTRAP_SERVERS", "k:9092", "ALERTS_HTTP_PORT", "1");
        SettingsReader r = SettingsReader.layered(Map.of("http.port", "8000", "admin.bearerToken", "from-file"),
                "LOG_TAILER_", env, system, ALL);
        assertEquals(7000, r.get(PORT), "a system property wins over the environment and the file");
        assertEquals("from-env", r.get(TOKEN), "camel case as underscores");
        assertEquals(400, r.get(ACTIVE_RUNS), "camel case without underscores");
        assertEquals("k:9092", r.get(BOOTSTRAP), "an alias is read under the setting");
        assertEquals(Map.of("sasl.jaas.config", "jaas"), r.passThrough("kafka."), "an unknown name is a dotted key");
        r.refuseUnknown("README.md");
        assertEquals("LOG_TAILER_ADMIN_BEARER_TOKEN", SettingsReader.envName("LOG_TAILER_", "admin.bearerToken"));
        assertEquals("log.tailer.", SettingsReader.propertyPrefix("LOG_TAILER_"));
    }

    @Test
    void aMisspeltKeyIsRefusedByName() {
        SettingsReader r = SettingsReader.of(Map.of("http.prot", "1", "http.port", "2"));
        r.get(PORT);
        SettingException e = assertThrows(SettingException.class, () -> r.refuseUnknown("README.md"));
        assertEquals("unknown setting http.prot (see README.md)", e.getMessage());
    }

    @Test
    void theReferenceShowsEachDefaultAsTheReadmeDoes() {
        Map<String, String> reference = SettingsReference.defaults(ALL);
        assertEquals("8080", reference.get("http.port"));
        assertEquals(SettingsReference.REQUIRED, reference.get("admin.bearerToken"));
        assertEquals("PT10S", reference.get("ledger.ackTimeout"));
        assertEquals(SettingsReference.NONE, reference.get("kafka.bootstrap.servers"), "an alias has its own row");
        assertEquals("java.io.tmpdir/x", Setting.string("k").showing("java.io.tmpdir/x").shownDefault());
        assertEquals("0.5", Setting.seconds("s").defaultsTo(Duration.ofMillis(500)).shownDefault());
        assertNull(SettingsReader.of(Map.of()).get(Setting.string("optional")));
    }

    @Test
    void boundsHoldForValuesBuiltInCodeToo() {
        Setting<String> kind = Setting.oneOf("database.kind", "postgres", "mariadb").defaultsTo("postgres");
        assertEquals("mariadb", SettingsReader.of(Map.of("database.kind", "MariaDB")).get(kind));
        assertEquals("database.kind must be one of postgres, mariadb, was oracle",
                assertThrows(SettingException.class, () -> kind.check("oracle")).getMessage());
        assertEquals("n must be positive, was 0",
                assertThrows(SettingException.class, () -> Setting.integer("n").positive().check(0)).getMessage());
        assertEquals("id must match [a-z]+, was A1",
                assertThrows(SettingException.class, () -> Setting.string("id").matching("[a-z]+").check("A1"))
                        .getMessage());
        assertThrows(SettingException.class, () -> Setting.string("host").notBlank().check(" "));
        assertThrows(SettingException.class, () -> Setting.httpUrl("url").check(java.net.URI.create("ftp://x")));
        SettingException rule = assertThrows(SettingException.class, () -> PORT.require(false, "must differ"));
        assertEquals("http.port must differ", rule.getMessage());
    }

    @Test
    void secretKeysFollowOneRule() {
        for (String key : new String[] {"sasl.jaas.config", "ssl.keystore.password", "ssl.key.password",
                "ssl.truststore.password", "database.password", "admin.bearerToken", "auth.tokens",
                "smtp.password", "sasl.oauthbearer.client.credentials.client.secret", "ssl.keystore.key"}) {
            assertTrue(SecretKeys.isSecret(key), key);
        }
        assertTrue(SecretKeys.isSecret("developerToken"), "a token that only ends like a count is still one");
        assertFalse(Setting.decimal("j").between(0, 1).parse("1.0").isNaN());
        assertThrows(SettingException.class, () -> Setting.decimal("j").between(0, 1).parse("1.5"));
        assertThrows(SettingException.class, () -> Setting.decimal("j").between(0, 1).parse("NaN"));
        assertEquals("", SettingsReader.of(Map.of("ns", "")).get(Setting.string("ns").defaultsTo("cs.")
                .emptyAllowed()), "an empty value that is a value");
        assertEquals("cs.", SettingsReader.of(Map.of("ns", "")).get(Setting.string("ns").defaultsTo("cs.")));
        SettingsReader off = SettingsReader.of(Map.of("smtp.port", "x"));
        off.accept(List.of(Setting.integer("smtp.port")));
        off.refuseUnknown("README.md");
        for (String key : new String[] {"bootstrap.servers", "security.protocol", "sasl.mechanism",
                "ssl.keystore.location", "database.user", "http.port", "group.id", "limits.maxRunsPerToken",
                "lanes.groupByKey"}) {
            assertFalse(SecretKeys.isSecret(key), key);
        }
    }
}
