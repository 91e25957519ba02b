package io.changestream.topics.model;

/** Which side of a delivery failed, as in the platform's {@code FailedEvent.source}. */
public enum FailureSource {
    /** The subscriber's side failed: the destination refused or never accepted the notification. */
    SUBSCRIBER,
    /** The publisher's side failed: evaluating the subscription (filters, templates); nothing was sent. */
    PUBLISHER
}
