package io.changestream.runtime.internal;

import io.changestream.runtime.KeyAssignment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BiFunction;

/**
 * KeyBy: the lane of each routing key ({@link KeyAssignment}). Consumer threads {@link #acquire} a lane per event;
 * whoever takes an event out of the runtime (done, finally failed, dropped) {@link #release}s it exactly once.
 * Thread-safe.
 */
abstract class LaneAssigner {

    final int lanes;

    LaneAssigner(int lanes) {
        this.lanes = lanes;
    }

    static LaneAssigner of(KeyAssignment mode, int lanes) {
        return mode == KeyAssignment.HASH ? new Hash(lanes) : new LeastLoaded(lanes);
    }

    /** Consumer thread: the lane of one more event with {@code key}. */
    abstract int acquire(Object key);

    /** Any thread: an event of {@code key} on {@code lane} left the runtime. */
    abstract void release(Object key, int lane);

    /** Events of a lane in the runtime (queued, held by its worker, parked); -1 when not counted. */
    abstract int load(int lane);

    /** {@code hash(key)} scaled onto the lanes (multiply and shift: no division per record). */
    static final class Hash extends LaneAssigner {
        Hash(int lanes) {
            super(lanes);
        }

        @Override
        int acquire(Object key) {
            int h = key.hashCode();
            return (int) (((h ^ (h >>> 16)) & 0xFFFF_FFFFL) * lanes >>> 32);
        }

        @Override
        void release(Object key, int lane) {
        }

        @Override
        int load(int lane) {
            return -1;
        }
    }

    /** A key keeps its lane while it has events in the runtime; a new key takes the less loaded of two lanes. */
    static final class LeastLoaded extends LaneAssigner {
        /** A key's lane and how many of its events are in the runtime; changed only inside the map's compute. */
        private static final class Lease {
            final int lane;
            int count;

            Lease(int lane) {
                this.lane = lane;
            }
        }

        private final ConcurrentHashMap<Object, Lease> leases = new ConcurrentHashMap<>();
        private final AtomicIntegerArray load;
        private final BiFunction<Object, Lease, Lease> take = (key, lease) -> {
            Lease l = lease == null ? new Lease(pick()) : lease;
            l.count++;
            return l;
        };
        private final BiFunction<Object, Lease, Lease> give = (key, lease) -> --lease.count == 0 ? null : lease;

        LeastLoaded(int lanes) {
            super(lanes);
            this.load = new AtomicIntegerArray(lanes);
        }

        @Override
        int acquire(Object key) {
            int lane = leases.compute(key, take).lane;
            load.incrementAndGet(lane);
            return lane;
        }

        @Override
        void release(Object key, int lane) {
            leases.computeIfPresent(key, give);
            load.decrementAndGet(lane);
        }

        @Override
        int load(int lane) {
            return load.get(lane);
        }

        private int pick() {
            if (lanes == 1) {
                return 0;
            }
            ThreadLocalRandom r = ThreadLocalRandom.current();
            int a = r.nextInt(lanes);
            int b = r.nextInt(lanes - 1);
            b = b >= a ? b + 1 : b;
            return load.get(b) < load.get(a) ? b : a;
        }
    }
}
