package io.changestream.alerts.impact;

import io.changestream.alerts.platform.PlatformSettings;
import io.changestream.testkit.PlatformStandIn;

/** The alert service's settings for the test kit's {@link PlatformStandIn} (its estate: {@code ImpactEstate}). */
public final class ImpactFixture {

    private ImpactFixture() {
    }

    /** The stand-in's API with its token. */
    public static PlatformSettings platform(PlatformStandIn platform) {
        return new PlatformSettings(platform.url(), PlatformStandIn.TOKEN, java.time.Duration.ofSeconds(5),
                java.time.Duration.ofMinutes(5), 1000, 10);
    }
}
