package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.changestream.alerts.impact.Impact;
import io.openlineage.client.OpenLineage;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
        properties.put("status", impact.status().wire());
        if (impact.reason() != null) {
            properties.put("reason", impact.reason());
        }
        if (impact.pipelineType() != null) {
            properties.put("pipelineType", impact.pipelineType());
        }
        properties.put("downstreamDepth", downstreamDepth);
        if (!tiers.isEmpty()) {
            properties.put("tiers", List.copyOf(tiers));
        }
        properties.put("total", impact.total());
        properties.put("truncated", impact.truncated());
        properties.put("resolvedInMs", impact.tookMillis());
        List<Map<String, Object>> assets = new ArrayList<>();
        for (Impact.Asset a : impact.assets()) {
            Map<String, Object> asset = new LinkedHashMap<>();
            asset.put("entityType", a.type());
            asset.put("fullyQualifiedName", a.fqn());
            asset.put("depth", a.depth());
            if (a.tier() != null) {
                asset.put("tier", a.tier());
            }
            asset.put("tags", a.tags());
            List<Map<String, Object>> owners = new ArrayList<>();
            for (Impact.Owner o : a.owners()) {
                Map<String, Object> owner = new LinkedHashMap<>();
                owner.put("type", "team".equals(o.type()) ? "team" : "user");
                if (o.name() != null) {
                    owner.put("name", o.name());
                }
                owners.add(owner);
            }
            asset.put("owners", owners);
            assets.add(asset);
        }
        properties.put("assets", assets);
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
