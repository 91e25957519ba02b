package io.changestream.bench.cdc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;
import java.util.UUID;

/**
 * Realistic {@code change_event.json} values for the drain benchmark: the platform's ChangeEvent of an
 * {@code entityUpdated} table, with a {@code changeDescription} and the whole table entity (service, database, schema,
 * owners, tags and 1–16 columns of the platform's column shape), so rows are about 1.5–7 KB. Seeded: a run is the same
 * rows every time. Not thread-safe (one writer thread).
 */
final class ChangeEventRows {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String[] TYPES = {"VARCHAR", "BIGINT", "TIMESTAMP", "NUMERIC", "BOOLEAN", "JSON", "TEXT"};

    private final Random random;
    private final String[] entityIds;
    private final int[] columns;

    /** {@code entities} tables, each with a fixed number of columns, changed in turn at random. */
    ChangeEventRows(long seed, int entities) {
        this.random = new Random(seed);
        this.entityIds = new String[entities];
        this.columns = new int[entities];
        for (int i = 0; i < entities; i++) {
            entityIds[i] = new UUID(random.nextLong(), random.nextLong()).toString();
            columns[i] = 1 + random.nextInt(16);
        }
    }

    /** The next row's JSON. */
    String next(long timestamp) {
        int e = random.nextInt(entityIds.length);
        String fqn = "mysql_prod.shop.public.table_" + e;
        double version = 0.1 + random.nextInt(500) / 10.0;
        ObjectNode event = NODES.objectNode();
        event.put("id", new UUID(random.nextLong(), random.nextLong()).toString());
        event.put("eventType", "entityUpdated");
        event.put("entityType", "table");
        event.put("entityId", entityIds[e]);
        event.put("entityFullyQualifiedName", fqn);
        event.put("previousVersion", version);
        event.put("currentVersion", version + 0.1);
        event.put("userName", "admin");
        event.put("timestamp", timestamp);
        ObjectNode change = event.putObject("changeDescription");
        change.putArray("fieldsAdded");
        ObjectNode updated = change.putArray("fieldsUpdated").addObject();
        updated.put("name", "description");
        updated.put("oldValue", text(40));
        updated.put("newValue", text(40));
        change.putArray("fieldsDeleted");
        change.put("previousVersion", version);
        ObjectNode entity = event.putObject("entity");
        entity.put("id", entityIds[e]);
        entity.put("name", "table_" + e);
        entity.put("fullyQualifiedName", fqn);
        entity.put("description", text(120));
        entity.put("version", version + 0.1);
        entity.put("updatedAt", timestamp);
        entity.put("updatedBy", "admin");
        entity.put("href", "http://localhost:8585/api/v1/tables/" + entityIds[e]);
        entity.put("tableType", "Regular");
        reference(entity.putObject("service"), "databaseService", "mysql_prod");
        reference(entity.putObject("database"), "database", "mysql_prod.shop");
        reference(entity.putObject("databaseSchema"), "databaseSchema", "mysql_prod.shop.public");
        reference(entity.putArray("owners").addObject(), "user", "data-team");
        tag(entity.putArray("tags"), "Tier.Tier2");
        ArrayNode cols = entity.putArray("columns");
        for (int c = 0; c < columns[e]; c++) {
            ObjectNode col = cols.addObject();
            String type = TYPES[(e + c) % TYPES.length];
            col.put("name", "column_" + c);
            col.put("dataType", type);
            col.put("dataLength", 1 + (c * 31) % 255);
            col.put("dataTypeDisplay", type.toLowerCase(java.util.Locale.ROOT) + "(" + (1 + (c * 31) % 255) + ")");
            col.put("description", text(40));
            col.put("fullyQualifiedName", fqn + ".column_" + c);
            ArrayNode tags = col.putArray("tags");
            if (c % 3 == 0) {
                tag(tags, "PII.Sensitive");
            }
            col.put("ordinalPosition", c + 1);
            if (c == 0) {
                col.put("constraint", "PRIMARY_KEY");
            }
        }
        entity.put("deleted", false);
        return event.toString();
    }

    private void reference(ObjectNode ref, String type, String fqn) {
        ref.put("id", new UUID(random.nextLong(), random.nextLong()).toString());
        ref.put("type", type);
        ref.put("name", fqn.substring(fqn.lastIndexOf('.') + 1));
        ref.put("fullyQualifiedName", fqn);
        ref.put("deleted", false);
    }

    private static void tag(ArrayNode tags, String fqn) {
        ObjectNode tag = tags.addObject();
        tag.put("tagFQN", fqn);
        tag.put("source", "Classification");
        tag.put("labelType", "Manual");
        tag.put("state", "Confirmed");
    }

    private String text(int length) {
        StringBuilder s = new StringBuilder(length);
        while (s.length() < length) {
            s.append("lorem ipsum dolor sit amet consectetur ".charAt(random.nextInt(39)));
        }
        return s.toString();
    }
}
