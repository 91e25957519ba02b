/** The topic catalog on a cluster: read-only inspection for {@code topics describe} (provisioning is in topics). */
package io.changestream.ops.topics;
