package io.changestream.alerts.destination;

import io.changestream.alerts.platform.PlatformSettings;
import java.net.URI;
import java.util.Objects;

/**
 * How chat and e-mail messages are written.
 *
 * @param platformUrl    {@link PlatformSettings#URL}, for the entity link
 * @param maxChangeLines change lines listed before "… and N more" (default 20)
 * @param maxValueChars  characters of an old/new value shown before it is cut (default 200)
 */
public record MessageSettings(URI platformUrl, int maxChangeLines, int maxValueChars) {

    /** The defaults. */
    public static final MessageSettings DEFAULTS = new MessageSettings(PlatformSettings.URL.defaultOrFail(), 20, 200);

    public MessageSettings {
        Objects.requireNonNull(platformUrl, "messages.platformUrl is required");
        if (maxChangeLines < 1) {
            throw new IllegalArgumentException("messages.maxChangeLines must be >= 1, was " + maxChangeLines);
        }
        if (maxValueChars < 10) {
            throw new IllegalArgumentException("messages.maxValueChars must be >= 10, was " + maxValueChars);
        }
    }
}
