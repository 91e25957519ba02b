/**
 * The Debezium embedded (async) engine and what keeps it safe: the ack-before-commit sink, the capture loop that restarts
 * it, the standby lease, topic setup and the translation of settings into Debezium properties.
 */
package io.changestream.cdc.engine;
