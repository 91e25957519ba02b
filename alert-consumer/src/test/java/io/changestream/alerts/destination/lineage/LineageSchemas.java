package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The official OpenLineage JSON schemas the project ships in test resources ({@code openlineage/SOURCE.md}: spec
 * 2-0-2 and the four facet schemas, copied from OpenLineage/OpenLineage), loaded without network access: the facet
 * schemas' {@code $ref}s to {@code https://openlineage.io/spec/2-0-2/…} resolve to the shipped file. changestream's
 * own impact facet is validated against the schema its {@code _schemaURL} names (this module's
 * {@code openlineage/facets/ImpactRunFacet.json}), and its {@code _schemaURL} must name that schema.
 */
public final class LineageSchemas {

    /** The {@code $id} of the shipped main schema. */
    public static final String SPEC_ID = "https://openlineage.io/spec/2-0-2/OpenLineage.json";

    /** Where changestream's own facet schemas are published; they are this module's resources. */
    private static final String OWN_FACETS = "https://github.com/changestream/changestream/blob/main/alert-consumer/"
            + "src/main/resources/openlineage/facets/";

    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
            builder -> builder.schemaMappers(m -> m.mapPrefix("https://openlineage.io/spec/2-0-2/",
                    "classpath:openlineage/spec/2-0-2/").mapPrefix(OWN_FACETS, "classpath:openlineage/facets/")));
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder()
            .formatAssertionsEnabled(true).build();
    private static final JsonSchema RUN_EVENT = FACTORY.getSchema(SchemaLocation.of(SPEC_ID + "#/$defs/RunEvent"),
            CONFIG);
    /** Run facet schemas by the property they define. */
    private static final Map<String, JsonSchema> RUN_FACETS = Map.of(
            "errorMessage", facet("ErrorMessageRunFacet"),
            "processing_engine", facet("ProcessingEngineRunFacet"),
            "nominalTime", facet("NominalTimeRunFacet"),
            // changestream's own (issue 28): the schema the facet's _schemaURL names, shipped in main resources
            ImpactRunFacet.NAME, FACTORY.getSchema(SchemaLocation.of(OWN_FACETS + "ImpactRunFacet.json"), CONFIG));
    private static final Map<String, JsonSchema> JOB_FACETS = Map.of("jobType", facet("JobTypeJobFacet"));

    private LineageSchemas() {
    }

    private static JsonSchema facet(String name) {
        return FACTORY.getSchema(SchemaLocation.of("classpath:openlineage/spec/facets/" + name + ".json"), CONFIG);
    }

    /**
     * Every violation of the RunEvent schema and of the shipped facet schemas by the event; a facet the event
     * carries that no shipped schema describes is a violation too (so nothing goes unchecked).
     */
    public static List<String> violations(JsonNode event) {
        List<String> out = new ArrayList<>();
        RUN_EVENT.validate(event).stream().map(ValidationMessage::toString).forEach(out::add);
        check(event.path("run").path("facets"), RUN_FACETS, "run.facets", out);
        JsonNode impact = event.path("run").path("facets").path(ImpactRunFacet.NAME);
        if (!impact.isMissingNode() && !ImpactRunFacet.SCHEMA_URL.toString().equals(impact.path("_schemaURL").asText())) {
            out.add("run.facets." + ImpactRunFacet.NAME + "._schemaURL: names another schema");
        }
        check(event.path("job").path("facets"), JOB_FACETS, "job.facets", out);
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
