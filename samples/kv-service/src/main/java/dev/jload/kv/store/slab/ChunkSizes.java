package dev.jload.kv.store.slab;

import dev.jload.kv.config.ConfigException;
import java.util.ArrayList;
import java.util.List;

/**
 * The chunk size of each slab class, memcached style: from the smallest chunk, each class is {@code factor} times the
 * previous one, rounded up to 8 bytes (and at least 8 bytes larger), and the last class is exactly one page.
 */
final class ChunkSizes {
    static final int MAX_CLASSES = 256;
    private static final int ALIGN = 8;

    private ChunkSizes() {
    }

    static int[] of(int smallest, double factor, int pageSize) {
        List<Integer> sizes = new ArrayList<>();
        long size = align(smallest);
        while (size < pageSize) {
            sizes.add((int) size);
            size = Math.max(align((long) Math.ceil(size * factor)), size + ALIGN);
        }
        sizes.add(pageSize);
        if (sizes.size() > MAX_CLASSES) {
            throw new ConfigException("kv.offheap.factor=" + factor + " with kv.offheap.chunk=" + smallest
                    + " and kv.offheap.page=" + pageSize + " gives " + sizes.size() + " slab classes: at most "
                    + MAX_CLASSES + ", raise kv.offheap.factor or kv.offheap.chunk");
        }
        return sizes.stream().mapToInt(Integer::intValue).toArray();
    }

    private static long align(long size) {
        return (size + ALIGN - 1) / ALIGN * ALIGN;
    }
}
