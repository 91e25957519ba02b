package io.changestream.topics.model;

/** Which side of a delivery failed, as in the platform's {@code FailedEvent.source}. */
public enum FailureSource {
    /** Evaluating the subscription failed (filters, templates): the event never left. */
    SUBSCRIBER,
    /** Sending to the destination failed. */
    PUBLISHER
}
