package io.changestream.topics.serde;

import io.changestream.topics.model.DeliveryRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The values on {@code alert-ledger}: a <em>batch</em> — the outcomes of many pairs of one group and one source
 * partition, written by one instance as one record (decision 2201) — or, from before batches and from
 * {@code ops offsets reset}, one {@link DeliveryRecord} as JSON. {@link #decode} reads both; readers of the ledger
 * (window rebuilds, the status view, the admin lists) go through it and never parse a value themselves.
 *
 * <p>A batch is binary, no reflection: byte {@code 0x00} (JSON never starts with it), the version {@code 1}, then
 * the header — group id, source topic, source partition, writer (the instance that wrote it, so it can skip its
 * own batches when it reads the topic back), base time, count — and per pair: subscription id, event id,
 * destination group key (absent for a pair record), status, attempts, time and source offset. Integers are
 * unsigned varints (time and offset as zig-zag deltas from the previous entry); the subscription, destination and
 * status strings are written once per batch and then referred to by index. Stateless and thread-safe; an
 * {@link Encoder} is one thread's.
 */
public final class LedgerCodec {

    /** First byte of a batch. */
    public static final byte MAGIC = 0;
    /** The batch layout this class writes. */
    public static final byte VERSION = 1;
    private static final String TYPE = "ledger batch";

    private LedgerCodec() {
    }

    /** What one ledger value holds: its records and, for a batch, the instance that wrote it (else null). */
    public record Decoded(String writer, List<DeliveryRecord> records) {
    }

    /** Whether {@code value} is a batch (not a JSON record). */
    public static boolean isBatch(byte[] value) {
        return value != null && value.length > 0 && value[0] == MAGIC;
    }

    /**
     * The writer of a batch, read from its header only (a reader skipping its own batches decodes nothing else);
     * null for a JSON record or a batch without one.
     *
     * @throws MalformedRecordException when the header cannot be read
     */
    public static String writerOf(String topic, byte[] value) {
        if (!isBatch(value)) {
            return null;
        }
        Reader in = new Reader(topic, value);
        try {
            in.pos = 2;
            in.text();
            in.text();
            in.varint();
            String writer = in.text();
            return writer.isEmpty() ? null : writer;
        } catch (ArrayIndexOutOfBoundsException e) {
            throw in.malformed("$.writer", "truncated batch header", e);
        }
    }

    /**
     * The records of one ledger value, a batch or a JSON record.
     *
     * @throws MalformedRecordException when the bytes are neither (the message names the topic and where)
     */
    public static Decoded decode(String topic, byte[] value) {
        if (value == null || value.length == 0) {
            return new Decoded(null, List.of());
        }
        if (!isBatch(value)) {
            return new Decoded(null, List.of(Serdes.deliveryRecord().fromJson(new String(value,
                    StandardCharsets.UTF_8))));
        }
        Reader in = new Reader(topic, value);
        try {
            in.pos = 1;
            int version = in.value[in.pos++];
            if (version != VERSION) {
                throw in.malformed("$.version", "unknown batch version " + version + " (this build reads "
                        + VERSION + ")");
            }
            String group = in.text();
            String sourceTopic = in.text();
            int sourcePartition = (int) in.varint();
            String writer = in.text();
            long time = in.varint();
            int count = (int) in.varint();
            if (count < 0 || count > value.length) {
                throw in.malformed("$.count", "count " + count + " does not fit " + value.length + " bytes");
            }
            List<DeliveryRecord> out = new ArrayList<>(count);
            List<String> table = new ArrayList<>();
            long offset = 0;
            for (int i = 0; i < count; i++) {
                String subscription = in.shared(table);
                String event = in.text();
                String destination = in.shared(table);
                String status = in.shared(table);
                int attempts = (int) in.varint();
                time += unzig(in.varint());
                offset += unzig(in.varint());
                out.add(new DeliveryRecord(group, subscription, event, destination, status, attempts, time,
                        sourceTopic, sourcePartition, offset));
            }
            return new Decoded(writer.isEmpty() ? null : writer, out);
        } catch (ArrayIndexOutOfBoundsException | NullPointerException | IllegalArgumentException e) {
            throw in.malformed("$[byte " + in.pos + "]", "truncated or corrupt batch: " + e, e);
        }
    }

    /**
     * Builds one batch of one group's pairs of one source partition. Not thread-safe; reusable after
     * {@link #reset}.
     */
    public static final class Encoder {

        private final String groupId;
        private final String sourceTopic;
        private final int sourcePartition;
        private final String writer;
        private final Map<String, Integer> table = new HashMap<>();
        private final Buffer entries = new Buffer(256);
        private int count;
        private long baseTime;
        private long lastTime;
        private long lastOffset;

        public Encoder(String groupId, String sourceTopic, int sourcePartition, String writer) {
            this.groupId = groupId;
            this.sourceTopic = sourceTopic;
            this.sourcePartition = sourcePartition;
            this.writer = writer == null ? "" : writer;
        }

        /** Adds one record; it must be of this encoder's group and source partition. */
        public Encoder add(DeliveryRecord r) {
            if (!groupId.equals(r.groupId()) || !sourceTopic.equals(r.sourceTopic())
                    || sourcePartition != r.sourcePartition()) {
                throw new IllegalArgumentException("record of " + r.groupId() + "/" + r.sourceTopic() + "-"
                        + r.sourcePartition() + " added to the batch of " + groupId + "/" + sourceTopic + "-"
                        + sourcePartition);
            }
            if (count == 0) {
                baseTime = r.deliveredAt();
                lastTime = baseTime;
            }
            shared(r.subscriptionId());
            entries.text(r.eventId());
            shared(r.destinationId());
            shared(r.status());
            entries.varint(r.attempts());
            entries.varint(zig(r.deliveredAt() - lastTime));
            entries.varint(zig(r.sourceOffset() - lastOffset));
            lastTime = r.deliveredAt();
            lastOffset = r.sourceOffset();
            count++;
            return this;
        }

        /** Records added since the last {@link #reset}. */
        public int count() {
            return count;
        }

        /** About the size of {@link #bytes()} now. */
        public int estimatedBytes() {
            return entries.size + 32 + 3 * (groupId.length() + sourceTopic.length() + writer.length());
        }

        /** The batch's value. */
        public byte[] bytes() {
            Buffer header = new Buffer(32 + 3 * (groupId.length() + sourceTopic.length() + writer.length()));
            header.room(2);
            header.bytes[header.size++] = MAGIC;
            header.bytes[header.size++] = VERSION;
            header.text(groupId);
            header.text(sourceTopic);
            header.varint(sourcePartition);
            header.text(writer);
            header.varint(baseTime);
            header.varint(count);
            byte[] out = Arrays.copyOf(header.bytes, header.size + entries.size);
            System.arraycopy(entries.bytes, 0, out, header.size, entries.size);
            return out;
        }

        /** Empties the batch. */
        public void reset() {
            entries.size = 0;
            count = 0;
            lastOffset = 0;
            table.clear();
        }

        private void shared(String s) {
            if (s == null) {
                entries.varint(0);
                return;
            }
            Integer index = table.get(s);
            if (index != null) {
                entries.varint(index + 2L);
                return;
            }
            table.put(s, table.size());
            entries.varint(1);
            entries.text(s);
        }
    }

    /** A growable byte array written front to back. */
    private static final class Buffer {
        byte[] bytes;
        int size;

        Buffer(int capacity) {
            bytes = new byte[capacity];
        }

        void text(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            varint(utf8.length);
            room(utf8.length);
            System.arraycopy(utf8, 0, bytes, size, utf8.length);
            size += utf8.length;
        }

        void varint(long v) {
            room(10);
            while ((v & ~0x7FL) != 0) {
                bytes[size++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            bytes[size++] = (byte) v;
        }

        void room(int n) {
            if (size + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + n));
            }
        }
    }

    private static long zig(long v) {
        return (v << 1) ^ (v >> 63);
    }

    private static long unzig(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    private static final class Reader {
        final String topic;
        final byte[] value;
        int pos;

        Reader(String topic, byte[] value) {
            this.topic = topic;
            this.value = value;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte b = value[pos++];
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw malformed("$[byte " + pos + "]", "varint longer than 10 bytes");
        }

        String text() {
            int n = (int) varint();
            if (n < 0 || pos + n > value.length) {
                throw malformed("$[byte " + pos + "]", "string of " + n + " bytes past the end");
            }
            String s = new String(value, pos, n, StandardCharsets.UTF_8);
            pos += n;
            return s;
        }

        String shared(List<String> table) {
            long code = varint();
            if (code == 0) {
                return null;
            }
            if (code == 1) {
                String s = text();
                table.add(s);
                return s;
            }
            long index = code - 2;
            if (index >= table.size()) {
                throw malformed("$[byte " + pos + "]", "reference " + index + " to one of " + table.size()
                        + " strings");
            }
            return table.get((int) index);
        }

        MalformedRecordException malformed(String path, String detail) {
            return malformed(path, detail, null);
        }

        MalformedRecordException malformed(String path, String detail, Throwable cause) {
            return new MalformedRecordException(TYPE, topic, path, detail, cause);
        }
    }
}
