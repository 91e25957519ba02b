package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The value on {@code cdc-dlq} (key = {@code sourceTable/logPosition}): a captured row that could not become a
 * {@link ChangeEvent} (blank or unparsable {@code json} column, missing required fields), kept raw with why.
 *
 * @param sourceTable  the source table; required
 * @param logPosition  LSN, binlog file:pos or GTID of the row
 * @param sourceOffset the row's {@code offset} column when it could be read
 * @param rawRow       the row as captured (JSON text of the Debezium {@code after} struct); required
 * @param reason       why it was rejected; required
 * @param timestamp    when it was rejected, epoch milliseconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record CdcDeadLetter(
        @JsonProperty(required = true) String sourceTable,
        String logPosition,
        Long sourceOffset,
        @JsonProperty(required = true) String rawRow,
        @JsonProperty(required = true) String reason,
        long timestamp) {

    public CdcDeadLetter {
        Objects.requireNonNull(sourceTable, "CdcDeadLetter.sourceTable is required");
        Objects.requireNonNull(rawRow, "CdcDeadLetter.rawRow is required");
        Objects.requireNonNull(reason, "CdcDeadLetter.reason is required");
    }

    /** The Kafka key of this record ({@code sourceTable/logPosition}, or the table alone without a position). */
    public String key() {
        return logPosition == null ? sourceTable : TopicKeys.cdcDeadLetter(sourceTable, logPosition);
    }
}
