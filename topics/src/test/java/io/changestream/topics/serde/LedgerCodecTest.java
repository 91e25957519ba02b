package io.changestream.topics.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.changestream.topics.model.DeliveryRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerCodecTest {

    private static DeliveryRecord pair(String sub, String event, String group, String status, int attempts, long at,
                                       long offset) {
        return new DeliveryRecord("g1", sub, event, group, status, attempts, at, "changes", 3, offset);
    }

    @Test
    void aBatchReadsBackEveryRecordExactly() {
        List<DeliveryRecord> in = new ArrayList<>();
        in.add(pair("sub-a", "ev-1", null, DeliveryRecord.DELIVERED, 1, 1_700_000_000_123L, 42));
        in.add(pair("sub-b", "ev-1", "hooks|x", DeliveryRecord.SKIPPED, 0, 1_700_000_000_120L, 42));
        in.add(pair("sub-a", "ev-ü", "hooks|x", "ATTEMPTING", 0, 1_700_000_000_500L, 7));
        in.add(pair("sub-b", "ev-3", null, DeliveryRecord.DEAD_LETTERED, 12, 1_700_000_009_000L, 1L << 40));
        LedgerCodec.Encoder encoder = new LedgerCodec.Encoder("g1", "changes", 3, "instance-7");
        in.forEach(encoder::add);

        byte[] value = encoder.bytes();
        LedgerCodec.Decoded out = LedgerCodec.decode("alert-ledger", value);

        assertTrue(LedgerCodec.isBatch(value));
        assertEquals("instance-7", out.writer());
        assertEquals("instance-7", LedgerCodec.writerOf("alert-ledger", value));
        assertEquals(in, out.records());
        assertTrue(encoder.estimatedBytes() >= value.length, encoder.estimatedBytes() + " < " + value.length);
    }

    @Test
    void aResetEncoderStartsANewBatch() {
        LedgerCodec.Encoder encoder = new LedgerCodec.Encoder("g1", "changes", 3, null);
        encoder.add(pair("sub-a", "ev-1", null, DeliveryRecord.DELIVERED, 1, 10, 5));
        encoder.reset();
        DeliveryRecord second = pair("sub-c", "ev-2", null, DeliveryRecord.DELIVERED, 2, 20, 6);
        encoder.add(second);

        LedgerCodec.Decoded out = LedgerCodec.decode("alert-ledger", encoder.bytes());

        assertNull(out.writer());
        assertEquals(List.of(second), out.records());
        assertEquals(1, encoder.count());
    }

    @Test
    void aJsonRecordOfTheOldLayoutIsStillRead() {
        DeliveryRecord r = pair("sub-a", "ev-1", null, DeliveryRecord.DELIVERED, 1, 10, 5);
        byte[] json = Serdes.deliveryRecord().toJson(r).getBytes(StandardCharsets.UTF_8);

        LedgerCodec.Decoded out = LedgerCodec.decode("alert-ledger", json);

        assertFalse(LedgerCodec.isBatch(json));
        assertEquals(List.of(r), out.records());
    }

    @Test
    void aRecordOfAnotherPartitionIsRefused() {
        LedgerCodec.Encoder encoder = new LedgerCodec.Encoder("g1", "changes", 4, null);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> encoder.add(pair("s", "e", null, DeliveryRecord.DELIVERED, 1, 1, 1)));
        assertTrue(e.getMessage().contains("changes-3"), e.getMessage());
    }

    @Test
    void aTruncatedBatchIsMalformedNamingTheTopic() {
        LedgerCodec.Encoder encoder = new LedgerCodec.Encoder("g1", "changes", 3, "w");
        encoder.add(pair("sub-a", "ev-1", null, DeliveryRecord.DELIVERED, 1, 10, 5));
        byte[] value = encoder.bytes();
        byte[] truncated = Arrays.copyOf(value, value.length - 3);
        byte[] future = value.clone();
        future[1] = 9;

        MalformedRecordException cut = assertThrows(MalformedRecordException.class,
                () -> LedgerCodec.decode("alert-ledger", truncated));
        MalformedRecordException newer = assertThrows(MalformedRecordException.class,
                () -> LedgerCodec.decode("alert-ledger", future));
        assertTrue(cut.getMessage().contains("alert-ledger"), cut.getMessage());
        assertTrue(newer.getMessage().contains("version 9"), newer.getMessage());
    }
}
