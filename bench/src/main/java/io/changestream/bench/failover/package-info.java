/** {@code ops/bench failover}: the alert service's group after a kill -9 and through a rolling restart (issue 26). */
package io.changestream.bench.failover;
