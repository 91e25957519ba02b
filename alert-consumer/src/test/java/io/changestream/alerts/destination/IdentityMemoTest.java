package io.changestream.alerts.destination;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdentityMemoTest {

    @Test
    void aValueIsFoundByItsKeysIdentityNotByEquality() {
        IdentityMemo<String, String> memo = new IdentityMemo<>(64);
        String key = new String("event-1");
        memo.put(key, "json");
        assertSame("json", memo.get(key));
        assertNull(memo.get(new String("event-1")), "an equal key that is another object is not the same event");
    }

    @Test
    void atMostSlotsKeysAreKeptAndALaterKeyTakesItsSlot() {
        IdentityMemo<Object, Integer> memo = new IdentityMemo<>(8);
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            Object k = new Object();
            keys.add(k);
            memo.put(k, i);
        }
        int kept = 0;
        for (int i = 0; i < keys.size(); i++) {
            Integer v = memo.get(keys.get(i));
            if (v != null) {
                kept++;
                assertEquals(i, v.intValue());
            }
        }
        assertTrue(kept >= 1 && kept <= 8, "kept " + kept);
        assertEquals(999, memo.get(keys.get(999)), "the last key put is always there");
    }

    @Test
    void valuesBeyondTheWeightBoundsAreNotKeptAndAFullMemoStillTakesNewKeysInUsedSlots() {
        IdentityMemo<Object, byte[]> memo = new IdentityMemo<>(1, v -> v.length, 10, 8);
        Object heavy = new Object();
        memo.put(heavy, new byte[9]);
        assertNull(memo.get(heavy), "heavier than one entry may be");
        Object first = new Object();
        memo.put(first, new byte[8]);
        assertArrayEquals(new byte[8], memo.get(first));
        Object second = new Object();
        memo.put(second, new byte[7]); // the one slot's 8 make room: 7 in all
        assertArrayEquals(new byte[7], memo.get(second));
        assertNull(memo.get(first));
    }

    @Test
    void theTotalWeightStaysWithinItsBound() {
        IdentityMemo<Object, byte[]> memo = new IdentityMemo<>(1024, v -> v.length, 100, 100);
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Object k = new Object();
            keys.add(k);
            memo.put(k, new byte[10]);
        }
        long held = keys.stream().filter(k -> memo.get(k) != null).count();
        assertTrue(held >= 1 && held <= 10, "held " + held + " values of 10 bytes within 100");
    }

    @Test
    void slotsMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new IdentityMemo<>(1000));
    }
}
