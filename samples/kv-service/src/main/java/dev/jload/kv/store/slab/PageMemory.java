package dev.jload.kv.store.slab;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.jload.kv.config.ConfigException;
import dev.jload.kv.config.Sizes;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

/**
 * The slab store's direct memory: {@code pageCount} pages of {@code pageSize} bytes, reserved once at start in arenas
 * of at most 1 GiB and never grown, so the store uses exactly {@link #reservedBytes()} of direct memory. Pages are
 * addressed by number; reads and writes are absolute, so concurrent callers on different chunks never interfere.
 */
final class PageMemory {
    /** Direct memory left for Netty's own I/O buffers when checking the JVM's limit. */
    static final long NETWORK_RESERVE = 64L << 20;
    /** Upper bound on pages, which keeps the per-page bookkeeping small. */
    static final int MAX_PAGES = 1 << 20;

    private final ByteBuffer[] arenas;
    private final int pagesPerArena;
    private final int pageSize;
    private final int pageCount;

    PageMemory(long capacity, int pageSize) {
        long pages = capacity / pageSize;
        if (pages > MAX_PAGES) {
            throw new ConfigException("kv.offheap.capacity=" + Sizes.formatBytes(capacity) + " / kv.offheap.page="
                    + Sizes.formatBytes(pageSize) + " gives " + pages + " pages: at most " + MAX_PAGES
                    + ", raise kv.offheap.page");
        }
        this.pageSize = pageSize;
        this.pageCount = (int) pages;
        this.pagesPerArena = Math.max(1, (1 << 30) / pageSize);
        checkDirectLimit(reservedBytes());
        int arenaCount = (pageCount + pagesPerArena - 1) / pagesPerArena;
        this.arenas = new ByteBuffer[arenaCount];
        try {
            for (int i = 0; i < arenaCount; i++) {
                int pagesHere = Math.min(pagesPerArena, pageCount - i * pagesPerArena);
                arenas[i] = ByteBuffer.allocateDirect(pagesHere * pageSize);
            }
        } catch (OutOfMemoryError e) {
            throw new ConfigException("kv.offheap.capacity=" + Sizes.formatBytes(capacity)
                    + " could not be reserved (" + e.getMessage() + "): raise -XX:MaxDirectMemorySize or lower it");
        }
    }

    int pageCount() {
        return pageCount;
    }

    int pageSize() {
        return pageSize;
    }

    long reservedBytes() {
        return (long) pageCount * pageSize;
    }

    void write(int page, int offsetInPage, byte[] src, int srcOffset, int length) {
        arenas[page / pagesPerArena].put(base(page) + offsetInPage, src, srcOffset, length);
    }

    void read(int page, int offsetInPage, byte[] dst, int dstOffset, int length) {
        arenas[page / pagesPerArena].get(base(page) + offsetInPage, dst, dstOffset, length);
    }

    private int base(int page) {
        return (page % pagesPerArena) * pageSize;
    }

    /** The JVM's direct memory limit: -XX:MaxDirectMemorySize, whose default 0 means the max heap size. */
    static long directMemoryLimit() {
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long configured = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
        return configured > 0 ? configured : Runtime.getRuntime().maxMemory();
    }

    private static void checkDirectLimit(long reserved) {
        long limit = directMemoryLimit();
        if (reserved + NETWORK_RESERVE > limit) {
            throw new ConfigException("kv.offheap.capacity=" + Sizes.formatBytes(reserved) + " does not fit the JVM's"
                    + " direct memory limit of " + Sizes.formatBytes(limit) + " (-XX:MaxDirectMemorySize, default -Xmx)"
                    + " with " + Sizes.formatBytes(NETWORK_RESERVE) + " left for network buffers: set"
                    + " -XX:MaxDirectMemorySize=" + Sizes.formatBytes(roundUpToMiB(reserved + NETWORK_RESERVE))
                    + " or more, or lower kv.offheap.capacity");
        }
    }

    private static long roundUpToMiB(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20 << 20;
    }
}
