package io.changestream.topics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SecretSettingsTest {

    @Test
    void kafkaAndServiceSecretsAreSecret() {
        for (String key : new String[] {"sasl.jaas.config", "ssl.keystore.password", "ssl.key.password",
                "ssl.truststore.password", "database.password", "admin.bearerToken", "auth.tokens",
                "smtp.password", "sasl.oauthbearer.client.credentials.client.secret", "ssl.keystore.key"}) {
            assertTrue(SecretSettings.isSecret(key), key);
        }
    }

    @Test
    void ordinarySettingsAreNot() {
        for (String key : new String[] {"bootstrap.servers", "security.protocol", "sasl.mechanism",
                "ssl.keystore.location", "database.user", "http.port", "group.id"}) {
            assertFalse(SecretSettings.isSecret(key), key);
        }
    }
}
