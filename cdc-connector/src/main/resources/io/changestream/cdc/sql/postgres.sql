-- The platform's tables that changestream captures, PostgreSQL form (the platform's DDL as of its 1.3.0
-- migration: "offset" SERIAL primary key, JSONB json, STORED generated columns taken from the JSON).
-- "offset" is a reserved word in PostgreSQL and must stay quoted.
CREATE TABLE IF NOT EXISTS change_event (
    "offset" SERIAL PRIMARY KEY,
    eventType VARCHAR(36) GENERATED ALWAYS AS (json ->> 'eventType') STORED NOT NULL,
    entityType VARCHAR(36) GENERATED ALWAYS AS (json ->> 'entityType') STORED NOT NULL,
    userName VARCHAR(256) GENERATED ALWAYS AS (json ->> 'userName') STORED,
    eventTime BIGINT GENERATED ALWAYS AS ((json ->> 'timestamp')::bigint) STORED NOT NULL,
    json JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS change_event_event_type_index ON change_event (eventType);
CREATE INDEX IF NOT EXISTS change_event_entity_type_index ON change_event (entityType);
CREATE INDEX IF NOT EXISTS change_event_event_time_index ON change_event (eventTime);

-- Time series extensions of entities; rows with extension 'ingestionPipeline.pipelineStatus' are
-- pipeline run statuses (json: runId, pipelineState, startDate, endDate, timestamp, ...).
-- No primary key (as on the platform): REPLICA IDENTITY FULL lets a publication carry its updates.
CREATE TABLE IF NOT EXISTS entity_extension_time_series (
    entityFQNHash VARCHAR(768) NOT NULL,
    extension VARCHAR(256) NOT NULL,
    jsonSchema VARCHAR(256) NOT NULL,
    json JSONB NOT NULL,
    timestamp BIGINT GENERATED ALWAYS AS ((json ->> 'timestamp')::bigint) STORED NOT NULL
);
CREATE INDEX IF NOT EXISTS entity_extension_time_series_key_index
    ON entity_extension_time_series (entityFQNHash, extension, timestamp);
ALTER TABLE entity_extension_time_series REPLICA IDENTITY FULL;
