package io.changestream.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The official OpenLineage JSON schemas this kit ships ({@code openlineage/SOURCE.md}: spec 2-0-2 and the four facet
 * schemas, copied from OpenLineage/OpenLineage), loaded without network access: the facet schemas' {@code $ref}s to
 * {@code https://openlineage.io/spec/2-0-2/…} resolve to the shipped file. A producer's own run facets are validated
 * against the schema each one's {@code _schemaURL} names, read from the classpath's {@code openlineage/facets/} (the
 * URL's file name), and each facet's {@code _schemaURL} must name that schema. Immutable; any thread.
 */
public final class OpenLineageSchemas {

    /** The {@code $id} of the shipped main schema. */
    public static final String SPEC_ID = "https://openlineage.io/spec/2-0-2/OpenLineage.json";

    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder()
            .formatAssertionsEnabled(true).build();

    private final JsonSchema runEvent;
    /** Run facet schemas by the property they define. */
    private final Map<String, JsonSchema> runFacets = new HashMap<>();
    private final Map<String, URI> ownSchemaUrls;
    private final Map<String, JsonSchema> jobFacets;

    /**
     * @param ownRunFacets a producer's custom run facets: name in {@code run.facets} → its {@code _schemaURL}
     *                     ({@code https://…/openlineage/facets/X.json#/$defs/X}, X.json a classpath resource)
     */
    public OpenLineageSchemas(Map<String, URI> ownRunFacets) {
        JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
                builder -> builder.schemaMappers(m -> {
                    m.mapPrefix("https://openlineage.io/spec/2-0-2/", "classpath:openlineage/spec/2-0-2/");
                    ownRunFacets.values().forEach(url -> m.mapPrefix(folder(url), "classpath:openlineage/facets/"));
                }));
        runEvent = factory.getSchema(SchemaLocation.of(SPEC_ID + "#/$defs/RunEvent"), CONFIG);
        runFacets.put("errorMessage", facet(factory, "ErrorMessageRunFacet"));
        runFacets.put("processing_engine", facet(factory, "ProcessingEngineRunFacet"));
        runFacets.put("nominalTime", facet(factory, "NominalTimeRunFacet"));
        ownRunFacets.forEach((name, url) -> runFacets.put(name, factory.getSchema(SchemaLocation.of(
                url.toString().replaceFirst("#.*$", "")), CONFIG)));
        ownSchemaUrls = Map.copyOf(ownRunFacets);
        jobFacets = Map.of("jobType", facet(factory, "JobTypeJobFacet"));
    }

    private static String folder(URI url) {
        String s = url.toString().replaceFirst("#.*$", "");
        return s.substring(0, s.lastIndexOf('/') + 1);
    }

    private static JsonSchema facet(JsonSchemaFactory factory, String name) {
        return factory.getSchema(SchemaLocation.of("classpath:openlineage/spec/facets/" + name + ".json"), CONFIG);
    }

    /**
     * Every violation of the RunEvent schema and of the facet schemas by the event; a facet the event carries that
     * no schema here describes is a violation too (so nothing goes unchecked).
     */
    public List<String> violations(JsonNode event) {
        List<String> out = new ArrayList<>();
        runEvent.validate(event).stream().map(ValidationMessage::toString).forEach(out::add);
        JsonNode run = event.path("run").path("facets");
        check(run, runFacets, "run.facets", out);
        ownSchemaUrls.forEach((name, url) -> {
            JsonNode facet = run.path(name);
            if (!facet.isMissingNode() && !url.toString().equals(facet.path("_schemaURL").asText())) {
                out.add("run.facets." + name + "._schemaURL: names another schema");
            }
        });
        check(event.path("job").path("facets"), jobFacets, "job.facets", out);
        return out;
    }

    private static void check(JsonNode facets, Map<String, JsonSchema> schemas, String where, List<String> out) {
        if (facets.isMissingNode()) {
            return;
        }
        facets.fieldNames().forEachRemaining(name -> {
            if (!schemas.containsKey(name)) {
                out.add(where + "." + name + ": no shipped schema for this facet");
            }
        });
        schemas.forEach((name, schema) -> {
            if (facets.has(name)) {
                schema.validate(facets).forEach(m -> out.add(where + ": " + m));
            }
        });
    }
}
