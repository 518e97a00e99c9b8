package dev.jload.kv.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.atomic.LongAdder;

/** Hit, miss, eviction and expiration counts every store keeps, and their rendering into the /stats JSON. */
public final class AccessCounters {
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder expirations = new LongAdder();

    public void hit() {
        hits.increment();
    }

    public void miss() {
        misses.increment();
    }

    public void evicted() {
        evictions.increment();
    }

    public void expired() {
        expirations.increment();
    }

    /** Records a lookup: a hit when {@code value} is non-null. Returns {@code value}. */
    public byte[] lookup(byte[] value) {
        if (value == null) {
            misses.increment();
        } else {
            hits.increment();
        }
        return value;
    }

    public long evictions() {
        return evictions.sum();
    }

    public long expirations() {
        return expirations.sum();
    }

    /**
     * Writes the fields common to every store: store, entries, bytesUsed, capacity, hits, misses, hitRatio, evictions,
     * expirations.
     */
    public void writeSummary(ObjectNode node, String store, long entries, long bytesUsed, long capacity) {
        long h = hits.sum();
        long m = misses.sum();
        node.put("store", store);
        node.put("entries", entries);
        node.put("bytesUsed", bytesUsed);
        node.put("capacity", capacity);
        node.put("hits", h);
        node.put("misses", m);
        node.put("hitRatio", h + m == 0 ? 0.0 : (double) h / (h + m));
        node.put("evictions", evictions.sum());
        node.put("expirations", expirations.sum());
    }
}
