package dev.jload.kv.store.heap;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import dev.jload.kv.config.KvConfig.HeapSettings;
import dev.jload.kv.store.AccessCounters;
import dev.jload.kv.store.Key;
import dev.jload.kv.store.KvStore;
import java.time.Duration;
import java.util.Arrays;

/**
 * Seed 001's in-heap store: a Caffeine cache (W-TinyLFU eviction) bounded by {@code kv.maxMemory} bytes and, when set,
 * {@code kv.maxSize} entries, both through {@link EntryWeigher}; optional expiry after write ({@code kv.ttl}).
 * Maintenance runs on the calling thread, so the bound holds under load without a helper pool falling behind.
 */
public final class HeapStore implements KvStore {
    private final AccessCounters counters = new AccessCounters();
    private final Cache<Key, byte[]> cache;
    private final Policy.Eviction<Key, byte[]> eviction;
    private final EntryWeigher weigher;
    private final HeapSettings settings;

    public HeapStore(HeapSettings settings, long ttlMillis) {
        this.settings = settings;
        this.weigher = new EntryWeigher(settings.maxMemory(), settings.maxSize());
        Caffeine<Key, byte[]> builder = Caffeine.newBuilder()
                .executor(Runnable::run)
                .maximumWeight(weigher.maximumWeight())
                .weigher(weigher)
                .evictionListener((Key k, byte[] v, RemovalCause cause) -> {
                    if (cause == RemovalCause.EXPIRED) {
                        counters.expired();
                    } else {
                        counters.evicted();
                    }
                });
        if (ttlMillis > 0) {
            builder.expireAfterWrite(Duration.ofMillis(ttlMillis)).scheduler(Scheduler.systemScheduler());
        }
        this.cache = builder.build();
        this.eviction = cache.policy().eviction().orElseThrow();
    }

    @Override
    public byte[] get(Key key) {
        return counters.lookup(cache.getIfPresent(key));
    }

    @Override
    public void put(Key key, byte[] src, int offset, int length) {
        cache.put(key, Arrays.copyOfRange(src, offset, offset + length));
    }

    @Override
    public boolean delete(Key key) {
        return cache.asMap().remove(key) != null;
    }

    /** Weighed bytes held now (footprint estimate, or the per-entry floor when kv.maxSize is set). */
    public long weighedBytes() {
        return eviction.weightedSize().orElse(0) * weigher.unit();
    }

    /** Runs pending evictions and expirations now (tests use it to read settled figures). */
    public void settle() {
        cache.cleanUp();
    }

    @Override
    public void writeStats(ObjectNode node) {
        counters.writeSummary(node, "heap", cache.estimatedSize(), weighedBytes(), settings.maxMemory());
        node.put("maxMemory", settings.maxMemory());
        node.put("maxSize", settings.maxSize());
        node.put("entryOverheadEstimate", EntryWeigher.ENTRY_OVERHEAD);
    }

    @Override
    public boolean blocking() {
        return false;
    }

    @Override
    public void close() {
        cache.invalidateAll();
        cache.cleanUp();
    }
}
