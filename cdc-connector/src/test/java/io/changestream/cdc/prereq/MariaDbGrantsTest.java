package io.changestream.cdc.prereq;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MariaDbGrantsTest {

    @Test
    void allPrivilegesOnEverythingHoldsEachGrantTheConnectorNeeds() {
        MariaDbGrants g = MariaDbGrants.parse(List.of(
                "GRANT ALL PRIVILEGES ON *.* TO `cdc`@`%` IDENTIFIED BY PASSWORD '*ABC' WITH GRANT OPTION"));
        for (String p : List.of("RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "REPLICATION CLIENT")) {
            assertTrue(g.global(p), p);
        }
        assertTrue(g.on("SELECT", "platform", "change_event"));
    }

    @Test
    void mariaDbsNewNamesCountAsTheOldOnes() {
        MariaDbGrants g = MariaDbGrants.parse(List.of(
                "GRANT RELOAD, SHOW DATABASES, BINLOG MONITOR, REPLICATION REPLICA ON *.* TO `cdc`@`%`"));
        assertTrue(g.global("REPLICATION CLIENT"));
        assertTrue(g.global("REPLICATION SLAVE"));
        assertFalse(g.on("SELECT", "platform", "change_event"));
    }

    @Test
    void selectCountsOnTheDatabaseOrTheTableButNotOnOneColumnOrAnotherTable() {
        MariaDbGrants g = MariaDbGrants.parse(List.of(
                "GRANT USAGE ON *.* TO `cdc`@`%`",
                "GRANT SELECT ON `platform`.`change_event` TO `cdc`@`%`",
                "GRANT SELECT (`json`) ON `platform`.`entity_extension_time_series` TO `cdc`@`%`",
                "GRANT SELECT ON `plat\\_%`.* TO `cdc`@`%`",
                "GRANT `cdc_role` TO `cdc`@`%`"));
        assertTrue(g.on("SELECT", "platform", "change_event"));
        assertFalse(g.on("SELECT", "platform", "entity_extension_time_series"), "a column grant is not enough");
        assertTrue(g.on("SELECT", "plat_x", "anything"), "a database pattern: \\_ is an underscore, % any run");
        assertFalse(g.on("SELECT", "platxx", "anything"));
        assertFalse(g.global("RELOAD"));
    }
}
