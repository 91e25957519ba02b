/** The picocli commands of the launcher; each parses options, calls a library class and prints a table. */
package io.changestream.ops.cli;
