package io.changestream.ops.offsets;

import io.changestream.alerts.ledger.LedgerRecords;
import io.changestream.ops.OpsException;
import io.changestream.ops.kafka.AdminCalls;
import io.changestream.topics.model.DeliveryRecord;
import io.changestream.topics.serde.Serdes;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * After an executed reset, tells the alert service's delivery ledger that the group starts over on the reset
 * partitions: one reset marker ({@link LedgerRecords#resetMarker}) per partition on {@code alert-ledger}, in the
 * ledger partition the service reads for that source partition. A window rebuild ignores this group's settlements of
 * the partition written before the marker, so the group re-delivers from the new offsets (receivers see the same
 * Idempotency-Key). {@code --skip-delivered} writes no marker: dedupe stays, only what was not yet delivered (within
 * the service's {@code ledger.dedupeHorizon}) is sent. CLI thread; the clients are the caller's.
 */
public final class ResetMarkers {

    private final Admin admin;
    private final Producer<String, String> producer;
    private final Clock clock;
    private final Duration timeout;

    public ResetMarkers(Admin admin, Producer<String, String> producer, Clock clock, Duration timeout) {
        this.admin = admin;
        this.producer = producer;
        this.clock = clock;
        this.timeout = timeout;
    }

    /**
     * Writes one marker per row of an executed plan to {@code ledgerTopic} and waits for every ack.
     *
     * @return the markers written (0 when the ledger topic does not exist: the group is not an alert group)
     */
    public int write(ResetPlan plan, String ledgerTopic) {
        if (!plan.executed()) {
            throw new IllegalArgumentException("reset markers are written for an executed plan only");
        }
        int partitions;
        try {
            Map<String, TopicDescription> topics = AdminCalls.await(admin.describeTopics(List.of(ledgerTopic))
                    .allTopicNames(), timeout, "describe " + ledgerTopic);
            partitions = topics.get(ledgerTopic).partitions().size();
        } catch (OpsException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return 0;
            }
            throw e;
        }
        List<Future<?>> sent = new ArrayList<>();
        for (PartitionPlan row : plan.rows()) {
            DeliveryRecord marker = LedgerRecords.resetMarker(plan.group(), row.partition(), row.newOffset(),
                    clock.millis());
            sent.add(producer.send(new ProducerRecord<>(ledgerTopic,
                    LedgerRecords.ledgerPartition(row.partition().partition(), partitions),
                    LedgerRecords.keyOf(marker), Serdes.deliveryRecord().toJson(marker))));
        }
        for (Future<?> f : sent) {
            try {
                f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OpsException("interrupted while writing reset markers to " + ledgerTopic, e);
            } catch (ExecutionException | TimeoutException e) {
                throw new OpsException("the offsets were reset, but reset markers could not be written to "
                        + ledgerTopic + " (the group would skip pairs it already delivered): " + e, e);
            }
        }
        return sent.size();
    }
}
