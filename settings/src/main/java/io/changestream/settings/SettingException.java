package io.changestream.settings;

/**
 * A setting that is missing, does not parse, breaks a bound or is unknown. The message names the key (never a secret
 * value); {@link #key()} is the key for callers that map it to their own error.
 */
public class SettingException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String key;

    public SettingException(String key, String message) {
        super(message);
        this.key = key;
    }

    public SettingException(String key, String message, Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    /** The key the problem is about ({@code *} for several, e.g. unknown keys). */
    public String key() {
        return key;
    }
}
