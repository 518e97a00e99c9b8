package dev.jload.kv.store;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the HTTP layer needs from a store. Implementations are thread-safe; a full store evicts instead of failing.
 * Values handed out by {@link #get} are never modified afterwards, so callers may wrap them without copying.
 */
public interface KvStore extends AutoCloseable {

    /** The value, or null on a miss. Counts a hit or a miss. */
    byte[] get(Key key);

    /**
     * Stores a copy of {@code src[offset, offset + length)} under {@code key}, replacing any previous value.
     *
     * @throws ValueTooLargeException when this store cannot hold a value of that length
     */
    void put(Key key, byte[] src, int offset, int length);

    /** Removes the key; true when it was present. */
    boolean delete(Key key);

    /** Fills {@code node} with the /stats fields of this store (see {@link AccessCounters#writeSummary}). */
    void writeStats(ObjectNode node);

    /** True when operations may block on I/O, so they must run off the network event loop. */
    boolean blocking();

    /** Releases memory, threads and files; afterwards no other method may be called. */
    @Override
    void close();
}
