/**
 * The changestream launcher: {@link io.changestream.ops.Main} and the exceptions that map to its exit codes
 * (0 success, 1 runtime failure, 2 usage error).
 */
package io.changestream.ops;
