package io.changestream.logs.source;

import io.changestream.settings.Setting;
import java.net.URI;

/**
 * The one kind of setting the shared model has no factory for: an http(s) URL ({@code s3.endpoint},
 * {@code airflow.url}), parsed as a {@link URI} and refused, naming the key, unless its scheme is http or https.
 */
final class UrlSetting {

    private UrlSetting() {
    }

    /** An http(s) URL setting under {@code key}. */
    static Setting<URI> http(String key) {
        return Setting.of(key, URI::create, URI::toString)
                .check(url -> "http".equals(url.getScheme()) || "https".equals(url.getScheme()),
                        "must be an http(s) URL");
    }
}
