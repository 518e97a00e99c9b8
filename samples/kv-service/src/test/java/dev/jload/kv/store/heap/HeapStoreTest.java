package dev.jload.kv.store.heap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jload.kv.config.KvConfig.HeapSettings;
import dev.jload.kv.store.Key;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The heap store against its limits, with real allocations measured on the JVM's heap. */
class HeapStoreTest {
    private static final long MIB = 1 << 20;

    private static HeapStore store(long maxMemory, long maxSize, long ttlMillis) {
        return new HeapStore(new HeapSettings(maxMemory, "test", maxSize), ttlMillis);
    }

    private static void put(HeapStore store, long key, int size) {
        byte[] value = new byte[size];
        Arrays.fill(value, (byte) key);
        store.put(Key.ofNumber(key), value, 0, size);
    }

    private static ObjectNode stats(HeapStore store) {
        ObjectNode node = new ObjectMapper().createObjectNode();
        store.writeStats(node);
        return node;
    }

    private static long heapUsedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Test
    void weighedBytesStayUnderMaxMemoryAndOverflowIsEvicted() {
        HeapStore store = store(4 * MIB, -1, 0);
        for (long key = 1; key <= 2000; key++) {
            put(store, key, 10_000);
        }
        store.settle();
        ObjectNode stats = stats(store);
        long entries = stats.get("entries").asLong();
        assertTrue(store.weighedBytes() <= 4 * MIB, "weighed " + store.weighedBytes());
        assertTrue(store.weighedBytes() > 3 * MIB, "store should be nearly full: " + store.weighedBytes());
        assertEquals(2000 - entries, stats.get("evictions").asLong(), "every distinct key not kept was evicted");
        assertTrue(entries < 420 && entries > 300, "entries " + entries);
    }

    @Test
    void realHeapGrowthStaysWithinMaxMemoryForSmallAndLargeValues() {
        for (int valueSize : new int[] {16, 100, 10_000}) {
            long before = heapUsedAfterGc();
            HeapStore store = store(32 * MIB, -1, 0);
            long keys = 4 * (32 * MIB) / (valueSize + 170);
            for (long key = 1; key <= keys; key++) {
                put(store, key, valueSize);
            }
            store.settle();
            long retained = heapUsedAfterGc() - before;
            long entries = stats(store).get("entries").asLong();
            assertTrue(store.weighedBytes() <= 32 * MIB);
            assertTrue(retained <= 32 * MIB * 11 / 10, "valueSize " + valueSize + ": heap grew by " + retained
                    + " bytes for a 32 MiB limit (" + retained / entries + " bytes per entry, " + entries + " entries)");
            store.close();
        }
    }

    @Test
    void maxSizeCapsEntries() {
        HeapStore store = store(64 * MIB, 1000, 0);
        for (long key = 1; key <= 5000; key++) {
            put(store, key, 10);
        }
        store.settle();
        ObjectNode stats = stats(store);
        assertEquals(1000, stats.get("entries").asLong());
        assertEquals(4000, stats.get("evictions").asLong());
    }

    @Test
    void bothLimitsHoldTogether() {
        HeapStore small = store(MIB, 100, 0);
        for (long key = 1; key <= 1000; key++) {
            put(small, key, 10);
        }
        small.settle();
        assertEquals(100, stats(small).get("entries").asLong(), "count cap binds for tiny values");

        HeapStore large = store(MIB, 100, 0);
        for (long key = 1; key <= 1000; key++) {
            put(large, key, 20_000);
        }
        large.settle();
        long entries = stats(large).get("entries").asLong();
        assertTrue(entries <= 1 * MIB / 20_000 && entries >= 40, "bytes cap binds for large values: " + entries);
    }

    @Test
    void entriesExpireAfterTtl() throws InterruptedException {
        HeapStore store = store(16 * MIB, -1, 150);
        put(store, 1, 100);
        assertArrayEquals(filled(1, 100), store.get(Key.ofNumber(1)));
        Thread.sleep(400);
        assertNull(store.get(Key.ofNumber(1)));
        store.settle();
        ObjectNode stats = stats(store);
        assertEquals(1, stats.get("expirations").asLong());
        assertEquals(0, stats.get("evictions").asLong());
        assertEquals(1, stats.get("hits").asLong());
        assertEquals(1, stats.get("misses").asLong());
    }

    @Test
    void putGetDeleteAndStoredCopyIsIndependent() {
        HeapStore store = store(16 * MIB, -1, 0);
        byte[] source = "hello world".getBytes();
        store.put(Key.ofText("k"), source, 6, 5);
        source[6] = 'X';
        assertArrayEquals("world".getBytes(), store.get(Key.ofText("k")));
        assertTrue(store.delete(Key.ofText("k")));
        assertFalse(store.delete(Key.ofText("k")));
        assertNull(store.get(Key.ofText("k")));
    }

    private static byte[] filled(long key, int size) {
        byte[] value = new byte[size];
        Arrays.fill(value, (byte) key);
        return value;
    }
}
