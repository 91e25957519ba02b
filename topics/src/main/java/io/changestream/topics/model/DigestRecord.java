package io.changestream.topics.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import java.util.Set;

/**
 * The value on {@code alert-digest} (key {@code <subscriptionId>/<group>}, so a group's entries and markers share a
 * partition and stay in order). Three kinds:
 * <ul>
 *   <li>{@value #ENTRY}: one matching event collected for a Scheduled or grouped subscription ({@code event}, its
 *       source coordinates); its pair is settled in the ledger once this record is acked.</li>
 *   <li>{@value #SEALED}: the owner closed a window: the entries of the key up to {@code lastOffset} (inclusive, not
 *       in an earlier window) form the message {@code flushId}, sent next. Written before the send, so an instance
 *       that takes the partition over sends the same members under the same id.</li>
 *   <li>{@value #SENT}: the message {@code flushId} reached the destination group {@code destination} (or was
 *       dead-lettered: {@code status}).</li>
 * </ul>
 *
 * @param kind           {@value #ENTRY}, {@value #SEALED} or {@value #SENT}
 * @param subscriptionId the subscription; required
 * @param group          the group's value ({@code ""} without groupBy); required
 * @param event          the collected event (entries; its entity may be left out to bound the record)
 * @param sourceTopic    the event's topic (entries)
 * @param sourcePartition the event's partition (entries)
 * @param sourceOffset   the event's offset (entries)
 * @param flushId        the message id (sealed, sent)
 * @param lastOffset     the last entry offset of the window (sealed)
 * @param members        entries in the window (sealed)
 * @param destination    the destination group key (sent)
 * @param status         DELIVERED or DEAD_LETTERED (sent)
 * @param at             when written, epoch milliseconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record DigestRecord(
        @JsonProperty(required = true) String kind,
        @JsonProperty(required = true) String subscriptionId,
        @JsonProperty(required = true) String group,
        ChangeEvent event,
        String sourceTopic,
        Integer sourcePartition,
        Long sourceOffset,
        String flushId,
        Long lastOffset,
        Integer members,
        String destination,
        String status,
        long at) {

    /** A collected event. */
    public static final String ENTRY = "ENTRY";
    /** A closed window, before its send. */
    public static final String SEALED = "SEALED";
    /** A window's message sent to one destination group. */
    public static final String SENT = "SENT";
    private static final Set<String> KINDS = Set.of(ENTRY, SEALED, SENT);

    public DigestRecord {
        Objects.requireNonNull(kind, "DigestRecord.kind is required");
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException("DigestRecord.kind must be one of " + KINDS + ", was " + kind);
        }
        Objects.requireNonNull(subscriptionId, "DigestRecord.subscriptionId is required");
        Objects.requireNonNull(group, "DigestRecord.group is required");
        if (ENTRY.equals(kind) && event == null) {
            throw new IllegalArgumentException("DigestRecord.event is required for an entry");
        }
        if (!ENTRY.equals(kind) && flushId == null) {
            throw new IllegalArgumentException("DigestRecord.flushId is required for a marker");
        }
    }

    /** The Kafka key: {@code <subscriptionId>/<group>}. */
    public String key() {
        return subscriptionId + TopicKeys.SEPARATOR + group;
    }
}
