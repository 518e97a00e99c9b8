package dev.jload.kv.store.slab;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jload.kv.config.KvConfig.SlabSettings;
import dev.jload.kv.config.Sizes;
import dev.jload.kv.store.AccessCounters;
import dev.jload.kv.store.Key;
import dev.jload.kv.store.KvStore;
import dev.jload.kv.store.ValueTooLargeException;
import dev.jload.kv.store.slab.SlabClass.Removal;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Seed 002's "MCache": a memcached-style slab allocator. Values live in chunks of direct memory reserved at start
 * ({@link PageMemory}); the index (key → class, page, slot, length, expiry) is a ConcurrentHashMap on the heap. Each
 * slab class has its own lock and LRU list; {@link SlabAutomove} moves pages to the classes that evict most and
 * reclaims expired entries. A value longer than one page is rejected with {@link ValueTooLargeException}.
 *
 * <p>Lock order: a class lock may be held while touching the index or taking an unassigned page; no thread ever holds
 * two class locks.
 */
public final class SlabStore implements KvStore {
    /** How often put() may move a page into an empty class before giving up (only contention can exhaust it). */
    private static final int PAGE_STEAL_ATTEMPTS = 32;

    private final AccessCounters counters = new AccessCounters();
    private final ConcurrentMap<Key, SlabEntry> index = new ConcurrentHashMap<>();
    private final PageTable pageTable;
    private final SlabClass[] classes;
    private final int[] chunkSizes;
    private final long ttlMillis;
    private final SlabAutomove automove;

    public SlabStore(SlabSettings settings, long ttlMillis) {
        this.chunkSizes = ChunkSizes.of(settings.smallestChunk(), settings.growthFactor(), settings.pageSize());
        this.pageTable = new PageTable(new PageMemory(settings.capacity(), settings.pageSize()));
        this.classes = new SlabClass[chunkSizes.length];
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new SlabClass(i, chunkSizes[i], settings.pageSize(), pageTable, index, counters);
        }
        this.ttlMillis = ttlMillis;
        this.automove = new SlabAutomove(this, settings.rebalanceMillis(), ttlMillis > 0);
    }

    @Override
    public byte[] get(Key key) {
        for (SlabEntry entry = index.get(key); entry != null; ) {
            SlabClass slabClass = classes[entry.classId];
            slabClass.lock.lock();
            try {
                if (entry.live) {
                    if (entry.expiredAt(System.currentTimeMillis())) {
                        slabClass.remove(entry, Removal.EXPIRED);
                        break;
                    }
                    byte[] value = new byte[entry.length];
                    pageTable.memory.read(entry.page, entry.slot * slabClass.chunkSize, value, 0, entry.length);
                    slabClass.touch(entry);
                    return counters.lookup(value);
                }
            } finally {
                slabClass.lock.unlock();
            }
            SlabEntry current = index.get(key);
            entry = current == entry ? null : current;
        }
        return counters.lookup(null);
    }

    @Override
    public void put(Key key, byte[] src, int offset, int length) {
        SlabClass slabClass = classFor(length);
        long expiresAt = ttlMillis > 0 ? System.currentTimeMillis() + ttlMillis : 0;
        SlabEntry replaced = null;
        boolean stored = false;
        for (int attempt = 0; !stored; attempt++) {
            slabClass.lock.lock();
            try {
                long chunk = slabClass.obtainChunk(System.currentTimeMillis());
                if (chunk >= 0) {
                    SlabEntry entry = new SlabEntry(key, slabClass.id, (int) (chunk >>> 32), (int) chunk, length,
                            expiresAt);
                    pageTable.memory.write(entry.page, entry.slot * slabClass.chunkSize, src, offset, length);
                    slabClass.link(entry);
                    replaced = index.put(key, entry);
                    stored = true;
                }
            } finally {
                slabClass.lock.unlock();
            }
            if (!stored) {
                SlabClass donor = largestClassOtherThan(slabClass);
                if (attempt == PAGE_STEAL_ATTEMPTS || donor == null) {
                    throw new IllegalStateException("slab class " + slabClass.id + " could not get a page");
                }
                movePage(donor, slabClass);
            }
        }
        if (replaced != null) {
            release(replaced, Removal.REPLACED);
        }
    }

    @Override
    public boolean delete(Key key) {
        SlabEntry entry = index.remove(key);
        if (entry == null) {
            return false;
        }
        release(entry, Removal.DELETED);
        return true;
    }

    private void release(SlabEntry entry, Removal why) {
        SlabClass slabClass = classes[entry.classId];
        slabClass.lock.lock();
        try {
            if (entry.live) {
                slabClass.remove(entry, why);
            }
        } finally {
            slabClass.lock.unlock();
        }
    }

    /** The class of the smallest chunk that holds {@code length} bytes. */
    SlabClass classFor(int length) {
        int i = Arrays.binarySearch(chunkSizes, length);
        int classId = i >= 0 ? i : -i - 1;
        if (classId == chunkSizes.length) {
            throw new ValueTooLargeException("value of " + length + " bytes is larger than kv.offheap.page="
                    + Sizes.formatBytes(pageTable.memory.pageSize()) + ": raise kv.offheap.page or send smaller values");
        }
        return classes[classId];
    }

    /**
     * Moves one page from {@code donor} to {@code receiver}, evicting the donor's entries on it. Returns false when the
     * donor has no page. Locks are taken one after the other, never together.
     */
    boolean movePage(SlabClass donor, SlabClass receiver) {
        int page;
        donor.lock.lock();
        try {
            page = donor.releasePage();
        } finally {
            donor.lock.unlock();
        }
        if (page < 0) {
            return false;
        }
        receiver.lock.lock();
        try {
            receiver.addPage(page, true);
        } finally {
            receiver.lock.unlock();
        }
        return true;
    }

    private SlabClass largestClassOtherThan(SlabClass receiver) {
        SlabClass largest = null;
        int largestPages = -1;
        for (SlabClass candidate : classes) {
            if (candidate == receiver) {
                continue;
            }
            candidate.lock.lock();
            try {
                if (candidate.pageCount() > largestPages) {
                    largest = candidate;
                    largestPages = candidate.pageCount();
                }
            } finally {
                candidate.lock.unlock();
            }
        }
        return largest;
    }

    SlabClass[] classes() {
        return classes;
    }

    @Override
    public void writeStats(ObjectNode node) {
        long bytesUsed = 0;
        long chunkBytes = 0;
        ArrayNode rows = node.arrayNode();
        for (SlabClass slabClass : classes) {
            ObjectNode row = rows.addObject();
            slabClass.lock.lock();
            try {
                slabClass.writeRow(row);
                bytesUsed += slabClass.usedBytes();
                chunkBytes += slabClass.usedChunks() * slabClass.chunkSize;
            } finally {
                slabClass.lock.unlock();
            }
        }
        PageMemory memory = pageTable.memory;
        counters.writeSummary(node, "offheap", index.size(), bytesUsed, memory.reservedBytes());
        node.put("chunkBytesUsed", chunkBytes);
        node.put("pageSize", memory.pageSize());
        node.put("pages", memory.pageCount());
        node.put("unassignedPages", pageTable.unassignedCount());
        node.put("pagesMovedByAutomove", automove.pagesMoved());
        node.set("slabs", rows);
    }

    @Override
    public boolean blocking() {
        return false;
    }

    @Override
    public void close() {
        automove.close();
    }
}
