package io.changestream.cdc.it;

import io.changestream.testkit.MariaDbServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real MariaDB server per test class, holding the platform's tables ({@code change_event} and the run-status
 * table): registered as a static {@code @RegisterExtension} field, it starts before the class's {@code @BeforeAll}
 * methods and stops after its {@code @AfterAll} methods.
 */
public final class PlatformMariaDb implements BeforeAllCallback, AfterAllCallback {

    private static final String SCHEMA = "io/changestream/cdc/sql/mysql.sql";
    private volatile MariaDbServer db;

    @Override
    public void beforeAll(ExtensionContext context) {
        db = MariaDbServer.start();
        db.executeResource(SCHEMA);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (db != null) {
            db.close();
            db = null;
        }
    }

    /** The running server (between the class's first and last test). */
    public MariaDbServer db() {
        if (db == null) {
            throw new IllegalStateException("MariaDB is not running: register PlatformMariaDb as a static extension");
        }
        return db;
    }
}
