package dev.jload.kv.store.slab;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jload.kv.store.AccessCounters;
import dev.jload.kv.store.Key;
import java.util.Arrays;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One slab class: all chunks of one size. It owns a set of pages cut into {@code chunksPerPage} chunks, a free-chunk
 * stack, and an LRU list of its live entries; when it has no free chunk it takes an unassigned page, and failing that
 * evicts its least recently used entry (memcached's per-class LRU).
 *
 * <p>Every method except the constant getters must be called with {@link #lock} held. An entry's index slot is
 * removed under this lock too, so the index never points at a chunk that was handed to someone else.
 */
final class SlabClass {
    final int id;
    final int chunkSize;
    final int chunksPerPage;
    final ReentrantLock lock = new ReentrantLock();

    private final PageTable pageTable;
    private final ConcurrentMap<Key, SlabEntry> index;
    private final AccessCounters counters;

    private int[] pages = new int[4];
    private int pageCount;
    /** Free chunks as {@code page << 32 | slot}. */
    private long[] freeChunks = new long[64];
    private int freeCount;
    private SlabEntry newest;
    private SlabEntry oldest;
    private long usedChunks;
    private long usedBytes;
    private long evicted;
    private long evictedByMove;
    private long expired;
    private long pagesMovedIn;
    private long pagesMovedOut;

    SlabClass(int id, int chunkSize, int pageSize, PageTable pageTable, ConcurrentMap<Key, SlabEntry> index,
              AccessCounters counters) {
        this.id = id;
        this.chunkSize = chunkSize;
        this.chunksPerPage = pageSize / chunkSize;
        this.pageTable = pageTable;
        this.index = index;
        this.counters = counters;
    }

    /**
     * A chunk for a new value, as {@code page << 32 | slot}: a free one, else one of a fresh unassigned page, else the
     * chunk of the least recently used entry (evicted, or counted as expired if its time is up). -1 when this class has
     * no page at all and none is unassigned: the caller must move a page here first.
     */
    long obtainChunk(long now) {
        if (freeCount == 0) {
            int page = pageTable.takeUnassigned();
            if (page >= 0) {
                addPage(page, false);
            } else if (oldest != null) {
                remove(oldest, oldest.expiredAt(now) ? Removal.EXPIRED : Removal.EVICTED);
            } else {
                return -1;
            }
        }
        return freeChunks[--freeCount];
    }

    /** Makes a freshly written entry live: most recently used, and its slot owned. */
    void link(SlabEntry entry) {
        entry.older = newest;
        if (newest != null) {
            newest.newer = entry;
        }
        newest = entry;
        if (oldest == null) {
            oldest = entry;
        }
        pageTable.occupy(entry);
        usedChunks++;
        usedBytes += entry.length;
    }

    /** Marks a read: the entry becomes the most recently used. */
    void touch(SlabEntry entry) {
        if (newest != entry) {
            unlinkFromList(entry);
            entry.newer = null;
            entry.older = newest;
            newest.newer = entry;
            newest = entry;
            if (oldest == null) {
                oldest = entry;
            }
        }
    }

    /** Why an entry leaves: the counters it feeds differ. MOVED = evicted because its page went to another class. */
    enum Removal { DELETED, REPLACED, EVICTED, EXPIRED, MOVED }

    /** Removes a live entry, drops it from the index (unless it was already replaced there) and frees its chunk. */
    void remove(SlabEntry entry, Removal why) {
        detach(entry, why);
        pushFree(entry.page, entry.slot);
    }

    /** Adds {@code page} to this class and offers all its chunks. */
    void addPage(int page, boolean moved) {
        if (pageCount == pages.length) {
            pages = Arrays.copyOf(pages, pageCount * 2);
        }
        pages[pageCount++] = page;
        pageTable.format(page, chunksPerPage);
        for (int slot = chunksPerPage - 1; slot >= 0; slot--) {
            pushFree(page, slot);
        }
        if (moved) {
            pagesMovedIn++;
        }
    }

    /**
     * Gives up the page with the fewest used chunks: its entries are evicted, its free chunks forgotten. Returns the
     * page, or -1 when this class has no page.
     */
    int releasePage() {
        if (pageCount == 0) {
            return -1;
        }
        int pick = 0;
        for (int i = 1; i < pageCount; i++) {
            if (pageTable.usedSlots(pages[i]) < pageTable.usedSlots(pages[pick])) {
                pick = i;
            }
        }
        int page = pages[pick];
        pages[pick] = pages[--pageCount];
        for (int slot = 0; slot < chunksPerPage; slot++) {
            SlabEntry owner = pageTable.owner(page, slot);
            if (owner != null) {
                detach(owner, Removal.MOVED);
            }
        }
        int kept = 0;
        for (int i = 0; i < freeCount; i++) {
            if ((int) (freeChunks[i] >>> 32) != page) {
                freeChunks[kept++] = freeChunks[i];
            }
        }
        freeCount = kept;
        pageTable.clear(page);
        pagesMovedOut++;
        return page;
    }

    /** Expires the entries of one page whose time is up (the crawler's step). Returns how many. */
    int reclaimExpired(int page, long now) {
        int reclaimed = 0;
        for (int slot = 0; slot < chunksPerPage; slot++) {
            SlabEntry owner = pageTable.owner(page, slot);
            if (owner != null && owner.expiredAt(now)) {
                remove(owner, Removal.EXPIRED);
                reclaimed++;
            }
        }
        return reclaimed;
    }

    /** Whether this class still owns {@code page} (the crawler works from a snapshot). */
    boolean ownsPage(int page) {
        for (int i = 0; i < pageCount; i++) {
            if (pages[i] == page) {
                return true;
            }
        }
        return false;
    }

    int[] pagesSnapshot() {
        return Arrays.copyOf(pages, pageCount);
    }

    int pageCount() {
        return pageCount;
    }

    long usedChunks() {
        return usedChunks;
    }

    long usedBytes() {
        return usedBytes;
    }

    long freeChunks() {
        return (long) pageCount * chunksPerPage - usedChunks;
    }

    /** LRU evictions so far; evictions caused by giving a page away are not counted, so automove does not chase them. */
    long evicted() {
        return evicted;
    }

    /**
     * One row of the SLAB table (seed 002): size, pages, chunks per page, used, free, evicted (LRU), evictedByMove
     * (entries of pages given away), expired, pages moved in and out.
     */
    void writeRow(ObjectNode row) {
        row.put("class", id);
        row.put("chunkSize", chunkSize);
        row.put("pages", pageCount);
        row.put("chunksPerPage", chunksPerPage);
        row.put("usedChunks", usedChunks);
        row.put("freeChunks", freeChunks());
        row.put("bytesUsed", usedBytes);
        row.put("evicted", evicted);
        row.put("evictedByMove", evictedByMove);
        row.put("expired", expired);
        row.put("pagesMovedIn", pagesMovedIn);
        row.put("pagesMovedOut", pagesMovedOut);
    }

    private void detach(SlabEntry entry, Removal why) {
        if (why != Removal.DELETED && why != Removal.REPLACED) {
            index.remove(entry.key, entry);
        }
        if (why == Removal.EVICTED) {
            evicted++;
            counters.evicted();
        } else if (why == Removal.MOVED) {
            evictedByMove++;
            counters.evicted();
        } else if (why == Removal.EXPIRED) {
            expired++;
            counters.expired();
        }
        unlinkFromList(entry);
        entry.newer = null;
        entry.older = null;
        entry.live = false;
        pageTable.vacate(entry);
        usedChunks--;
        usedBytes -= entry.length;
    }

    private void unlinkFromList(SlabEntry entry) {
        if (entry.newer != null) {
            entry.newer.older = entry.older;
        } else {
            newest = entry.older;
        }
        if (entry.older != null) {
            entry.older.newer = entry.newer;
        } else {
            oldest = entry.newer;
        }
    }

    private void pushFree(int page, int slot) {
        if (freeCount == freeChunks.length) {
            freeChunks = Arrays.copyOf(freeChunks, freeCount * 2);
        }
        freeChunks[freeCount++] = (long) page << 32 | slot;
    }
}
