-- The platform's tables that changestream captures, MySQL 8 / MariaDB 10.6+ form (the platform's DDL as of
-- its 1.3.0 migration: `offset` AUTO_INCREMENT primary key, JSON json, generated columns taken from the JSON).
-- Written in the dialect both servers accept: JSON_UNQUOTE(JSON_EXTRACT()) instead of MySQL's ->>, STORED
-- generated columns (always present in ROW binlog images) and no NOT NULL on them (MariaDB refuses it).
CREATE TABLE IF NOT EXISTS change_event (
    `offset` INT NOT NULL AUTO_INCREMENT,
    eventType VARCHAR(36) GENERATED ALWAYS AS (JSON_UNQUOTE(JSON_EXTRACT(json, '$.eventType'))) STORED,
    entityType VARCHAR(36) GENERATED ALWAYS AS (JSON_UNQUOTE(JSON_EXTRACT(json, '$.entityType'))) STORED,
    userName VARCHAR(256) GENERATED ALWAYS AS (JSON_UNQUOTE(JSON_EXTRACT(json, '$.userName'))) STORED,
    eventTime BIGINT UNSIGNED GENERATED ALWAYS AS (JSON_EXTRACT(json, '$.timestamp')) STORED,
    json JSON NOT NULL,
    PRIMARY KEY (`offset`),
    INDEX change_event_event_type_index (eventType),
    INDEX change_event_entity_type_index (entityType),
    INDEX change_event_event_time_index (eventTime)
);

-- Time series extensions of entities; rows with extension 'ingestionPipeline.pipelineStatus' are
-- pipeline run statuses (json: runId, pipelineState, startDate, endDate, timestamp, ...).
CREATE TABLE IF NOT EXISTS entity_extension_time_series (
    entityFQNHash VARCHAR(768) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    extension VARCHAR(256) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    jsonSchema VARCHAR(256) NOT NULL,
    json JSON NOT NULL,
    `timestamp` BIGINT UNSIGNED GENERATED ALWAYS AS (JSON_EXTRACT(json, '$.timestamp')) STORED,
    INDEX entity_extension_time_series_key_index (entityFQNHash, extension, `timestamp`)
);
