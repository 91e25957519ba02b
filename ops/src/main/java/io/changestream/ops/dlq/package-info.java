/** The alert dead-letter topic: listing failed deliveries and replaying them through the normal path. */
package io.changestream.ops.dlq;
