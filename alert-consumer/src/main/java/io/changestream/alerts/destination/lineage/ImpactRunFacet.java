package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.changestream.alerts.impact.Impact;
import io.openlineage.client.OpenLineage;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The custom run facet {@value #NAME}: a run's failure impact ({@link Impact}), described by the JSON Schema this
 * module ships ({@code openlineage/facets/ImpactRunFacet.json}, its {@code _schemaURL}). Immutable.
 */
@JsonPropertyOrder({"_producer", "_schemaURL"})
public final class ImpactRunFacet implements OpenLineage.RunFacet {

    /** The facet's name in {@code run.facets} (prefixed by its producer, as the spec asks of custom facets). */
    public static final String NAME = "changestream_impact";
    /** Where the facet's schema is published (this repository's copy of the shipped resource). */
    public static final URI SCHEMA_URL = URI.create("https://github.com/changestream/changestream/blob/main/"
            + "alert-consumer/src/main/resources/openlineage/facets/ImpactRunFacet.json#/$defs/ImpactRunFacet");

    private final URI producer;
    private final Map<String, Object> properties = new LinkedHashMap<>();

    /**
     * @param impact          the run's impact (already limited to {@code tiers})
     * @param tiers           the tiers it is limited to, empty = all
     * @param downstreamDepth the lineage depth asked for
     */
    ImpactRunFacet(URI producer, Impact impact, Set<String> tiers, int downstreamDepth) {
        this.producer = producer;
        properties.putAll(impact.describe(tiers, downstreamDepth));
    }

    @Override
    @JsonProperty("_producer")
    public URI get_producer() {
        return producer;
    }

    @Override
    @JsonProperty("_schemaURL")
    public URI get_schemaURL() {
        return SCHEMA_URL;
    }

    @Override
    @JsonAnyGetter
    public Map<String, Object> getAdditionalProperties() {
        return properties;
    }
}
