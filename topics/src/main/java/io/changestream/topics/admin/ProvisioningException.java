package io.changestream.topics.admin;

import io.changestream.topics.TopicsException;

/** Provisioning failed: the broker refused a request, or a request did not finish within the request timeout. */
public class ProvisioningException extends TopicsException {

    public ProvisioningException(String message, Throwable cause) {
        super(message, cause);
    }
}
