package dev.jload.kv.store.slab;

import dev.jload.kv.store.Key;

/**
 * The heap-side index record of one stored value: where its bytes live (class, page, slot), how long they are, when
 * they expire, and its links in the class's LRU list. Every mutable field is guarded by the owning class's lock.
 */
final class SlabEntry {
    final Key key;
    final int classId;
    final int page;
    final int slot;
    final int length;
    /** Expiry time in {@link System#currentTimeMillis()} terms, 0 = never. */
    final long expiresAt;

    /** False once the entry was removed, evicted or expired; its chunk may then hold someone else's bytes. */
    boolean live = true;
    /** Towards the most recently used end of the LRU list. */
    SlabEntry newer;
    /** Towards the least recently used end of the LRU list. */
    SlabEntry older;

    SlabEntry(Key key, int classId, int page, int slot, int length, long expiresAt) {
        this.key = key;
        this.classId = classId;
        this.page = page;
        this.slot = slot;
        this.length = length;
        this.expiresAt = expiresAt;
    }

    boolean expiredAt(long now) {
        return expiresAt != 0 && now >= expiresAt;
    }
}
