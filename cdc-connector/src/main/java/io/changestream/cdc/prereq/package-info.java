/**
 * The database prerequisites of a capture: before each engine run the connector asks the real server for the settings
 * (PostgreSQL {@code wal_level}, slots and WAL senders, the publication; MariaDB binlog settings) and the grants its
 * user needs, and names every one that is missing, with the statement that fixes it (cdc-connector/README.md,
 * "Database prerequisites").
 */
package io.changestream.cdc.prereq;
