package dev.jload.kv.store.heap;

import com.github.benmanes.caffeine.cache.Weigher;
import dev.jload.kv.store.Key;

/**
 * Weighs a heap entry so that one Caffeine {@code maximumWeight} enforces both {@code kv.maxMemory} and
 * {@code kv.maxSize}.
 *
 * <p>An entry's footprint is its key and value bytes plus {@link #ENTRY_OVERHEAD} (object headers of the key, its
 * byte array and the value array, Caffeine's node, the hash table's node and slot). When an entry cap is also set, each
 * entry weighs at least {@code maxMemory / maxSize}: then a total weight within maxMemory implies at most maxSize
 * entries, and the bytes bound still holds. Caffeine weights are ints, so weights count units of {@link #unit()}
 * bytes (1 byte up to a 1 GiB limit), always rounded up.
 */
final class EntryWeigher implements Weigher<Key, byte[]> {
    /** Measured per-entry heap cost beyond key and value bytes (JDK 17, compressed oops); see HeapStoreTest. */
    static final int ENTRY_OVERHEAD = 160;

    private final long unit;
    private final long maximumWeight;
    private final long floorWeight;

    EntryWeigher(long maxMemoryBytes, long maxEntries) {
        this.unit = Math.max(1, ceilDiv(maxMemoryBytes, 1L << 30));
        this.maximumWeight = maxMemoryBytes / unit;
        this.floorWeight = maxEntries > 0 ? Math.max(1, ceilDiv(maximumWeight, maxEntries)) : 1;
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
        return (long) key.length() + value.length + ENTRY_OVERHEAD;
    }

    @Override
    public int weigh(Key key, byte[] value) {
        return (int) Math.max(floorWeight, ceilDiv(footprint(key, value), unit));
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
