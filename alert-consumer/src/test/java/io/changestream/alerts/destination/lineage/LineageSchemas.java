package io.changestream.alerts.destination.lineage;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.testkit.OpenLineageSchemas;
import java.util.List;
import java.util.Map;

/**
 * The test kit's OpenLineage schemas with this module's own run facet ({@link ImpactRunFacet}, its schema in
 * {@code openlineage/facets/ImpactRunFacet.json}): what every RunEvent of the OpenLineage destination is checked with.
 */
public final class LineageSchemas {

    /** The {@code $id} of the shipped main schema. */
    public static final String SPEC_ID = OpenLineageSchemas.SPEC_ID;

    private static final OpenLineageSchemas SCHEMAS = new OpenLineageSchemas(
            Map.of(ImpactRunFacet.NAME, ImpactRunFacet.SCHEMA_URL));

    private LineageSchemas() {
    }

    /** {@link OpenLineageSchemas#violations}: the spec's, the facets' and changestream's own. */
    public static List<String> violations(JsonNode event) {
        return SCHEMAS.violations(event);
    }
}
