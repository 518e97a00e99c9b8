package dev.jload.kv.store.heap;

import com.github.benmanes.caffeine.cache.Weigher;
import dev.jload.kv.store.Key;

/**
 * Weighs a heap entry so that one Caffeine {@code maximumWeight} enforces both {@code kv.maxMemory} and
 * {@code kv.maxSize}.
 *
 * <p>An entry's footprint is its key and value arrays (with header and padding) plus {@link #ENTRY_OVERHEAD} (the key
 * object, Caffeine's node, the hash table's node and slot). When an entry cap is also set, each
 * entry weighs at least {@code floor = maxMemory / maxSize} (rounded down) and the cache holds at most
 * {@code floor * maxSize <= maxMemory}: a total weight within that implies at most maxSize entries, and the bytes
 * bound still holds. Caffeine weights are ints, so weights count units of {@link #unit()}
 * bytes (1 byte up to a 1 GiB limit), always rounded up.
 */
final class EntryWeigher implements Weigher<Key, byte[]> {
    /**
     * Per-entry heap bytes besides the two byte arrays: the Key object, Caffeine's node and the hash table's node and
     * slot (JDK 17, compressed oops). Fitted to HeapStoreTest's measurement, which checks it.
     */
    static final int ENTRY_OVERHEAD = 128;
    /** A byte array's header; arrays are padded to 8 bytes. */
    private static final int ARRAY_HEADER = 16;

    private final long unit;
    private final long maximumWeight;
    private final long floorWeight;

    EntryWeigher(long maxMemoryBytes, long maxEntries) {
        this.unit = Math.max(1, ceilDiv(maxMemoryBytes, 1L << 30));
        long byteLimit = maxMemoryBytes / unit;
        this.floorWeight = maxEntries > 0 ? Math.max(1, byteLimit / maxEntries) : 1;
        // floor * maxEntries <= byteLimit, so total weight <= it bounds both bytes and (with each entry >= floor) count.
        this.maximumWeight = maxEntries > 0 && byteLimit / maxEntries > 0 ? floorWeight * maxEntries : byteLimit;
    }

    /** Bytes one unit of weight stands for. */
    long unit() {
        return unit;
    }

    /** The Caffeine maximumWeight, in units. */
    long maximumWeight() {
        return maximumWeight;
    }

    /** Estimated heap bytes of one entry. */
    static long footprint(Key key, byte[] value) {
        return arrayBytes(key.length()) + arrayBytes(value.length) + ENTRY_OVERHEAD;
    }

    private static long arrayBytes(long length) {
        return (ARRAY_HEADER + length + 7) & ~7L;
    }

    @Override
    public int weigh(Key key, byte[] value) {
        return (int) Math.max(floorWeight, ceilDiv(footprint(key, value), unit));
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
