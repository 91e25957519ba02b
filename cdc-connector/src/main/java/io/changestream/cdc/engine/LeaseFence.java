package io.changestream.cdc.engine;

import io.changestream.cdc.CdcException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Who captures one engine run, under which lease epoch, and whether it still may: checked by the sink before each
 * batch is sent, and written into every produced record as the {@value #CAPTURER_HEADER} and
 * {@value #EPOCH_HEADER} headers, so the broker's log shows which instance wrote what under which lease. Immutable
 * apart from the lease it reads; any thread.
 */
final class LeaseFence {

    /** Header naming the capturing instance ({@code instance.id}). */
    static final String CAPTURER_HEADER = "cs.capturer";
    /** Header with the lease epoch the record was produced under (absent without a lease, e.g. on Postgres). */
    static final String EPOCH_HEADER = "cs.lease.epoch";

    private final GroupLease lease;
    private final String instanceId;
    private final long epoch;
    private final List<Header> headers;

    /** A fence for one engine run: {@code lease} null when the database itself admits one reader (Postgres). */
    LeaseFence(GroupLease lease, String instanceId, long epoch) {
        this.lease = lease;
        this.instanceId = instanceId;
        this.epoch = epoch;
        Header capturer = new RecordHeader(CAPTURER_HEADER, instanceId.getBytes(StandardCharsets.UTF_8));
        this.headers = lease == null ? List.of(capturer) : List.of(capturer,
                new RecordHeader(EPOCH_HEADER, Long.toString(epoch).getBytes(StandardCharsets.UTF_8)));
    }

    /** True while this run may produce: no lease configured, or the lease of this run's epoch is still held. */
    boolean holds() {
        return lease == null || lease.heldAt(epoch);
    }

    /** Throws when the lease of this run is gone: nothing of the batch in hand may be produced. */
    void check() {
        if (!holds()) {
            throw new CdcException.Retriable("lease epoch " + epoch + " is no longer held by " + instanceId
                    + " (current epoch " + lease.epoch() + "): the batch is not produced", null);
        }
    }

    /** The headers every record of this run carries. */
    List<Header> headers() {
        return headers;
    }

    long epoch() {
        return epoch;
    }
}
