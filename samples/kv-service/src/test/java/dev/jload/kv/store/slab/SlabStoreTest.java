package dev.jload.kv.store.slab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jload.kv.config.ConfigException;
import dev.jload.kv.config.KvConfig.SlabSettings;
import dev.jload.kv.store.Key;
import dev.jload.kv.store.ValueTooLargeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The slab allocator on real direct memory: layout, LRU, automove, expiry, concurrency and the memory bound. */
class SlabStoreTest {
    private static final int KIB = 1 << 10;
    private final List<SlabStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(SlabStore::close);
    }

    private SlabStore store(long capacity, int page, int chunk, double factor, long rebalanceMillis, long ttl) {
        SlabStore store = new SlabStore(new SlabSettings(capacity, page, chunk, factor, rebalanceMillis), ttl);
        opened.add(store);
        return store;
    }

    /** A value whose bytes encode its key and length, so any mix-up of chunks is detectable. */
    private static byte[] valueFor(long key, int length) {
        byte[] value = new byte[length];
        for (int i = 0; i < length; i++) {
            value[i] = (byte) (key * 31 + i + length);
        }
        return value;
    }

    private static void put(SlabStore store, long key, int length) {
        store.put(Key.ofNumber(key), valueFor(key, length), 0, length);
    }

    private static JsonNode stats(SlabStore store) {
        ObjectNode node = new ObjectMapper().createObjectNode();
        store.writeStats(node);
        return node;
    }

    private static JsonNode slab(JsonNode stats, int chunkSize) {
        for (JsonNode row : stats.get("slabs")) {
            if (row.get("chunkSize").asInt() == chunkSize) {
                return row;
            }
        }
        throw new AssertionError("no class with chunk size " + chunkSize);
    }

    @Test
    void chunkSizesGrowByFactorUpToOnePage() {
        assertArrayEquals(new int[] {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576},
                ChunkSizes.of(512, 2, 1 << 20));
        int[] gentle = ChunkSizes.of(100, 1.25, 4096);
        assertEquals(104, gentle[0], "aligned to 8 bytes");
        assertEquals(136, gentle[1]);
        assertEquals(4096, gentle[gentle.length - 1]);
        assertThrows(ConfigException.class, () -> ChunkSizes.of(16, 1.0001, 1 << 30));
    }

    @Test
    void storesReadsReplacesAndDeletesAcrossClasses() {
        SlabStore store = store(1 << 20, 64 * KIB, 512, 2, 0, 0);
        put(store, 7, 300);
        assertArrayEquals(valueFor(7, 300), store.get(Key.ofNumber(7)));
        put(store, 7, 5000);
        assertArrayEquals(valueFor(7, 5000), store.get(Key.ofNumber(7)));
        JsonNode stats = stats(store);
        assertEquals(1, stats.get("entries").asLong());
        assertEquals(0, slab(stats, 512).get("usedChunks").asLong(), "the replaced 300-byte chunk was freed");
        assertEquals(1, slab(stats, 8192).get("usedChunks").asLong());
        assertEquals(5000, stats.get("bytesUsed").asLong());
        assertTrue(store.delete(Key.ofNumber(7)));
        assertFalse(store.delete(Key.ofNumber(7)));
        assertNull(store.get(Key.ofNumber(7)));
        assertEquals(0, stats(store).get("bytesUsed").asLong());
        store.put(Key.ofText("empty"), new byte[0], 0, 0);
        assertArrayEquals(new byte[0], store.get(Key.ofText("empty")));
    }

    @Test
    void valueLargerThanAPageIsRejected() {
        SlabStore store = store(1 << 20, 64 * KIB, 512, 2, 0, 0);
        store.put(Key.ofNumber(1), new byte[64 * KIB], 0, 64 * KIB);
        ValueTooLargeException e = assertThrows(ValueTooLargeException.class,
                () -> store.put(Key.ofNumber(2), new byte[64 * KIB + 1], 0, 64 * KIB + 1));
        assertTrue(e.getMessage().contains("kv.offheap.page"), e.getMessage());
    }

    @Test
    void fullClassEvictsItsLeastRecentlyUsedEntry() {
        // 2 pages of 4 KiB, one class of 1 KiB chunks: 8 chunks in all.
        SlabStore store = store(8 * KIB, 4 * KIB, 1024, 4, 0, 0);
        for (long key = 1; key <= 8; key++) {
            put(store, key, 1000);
        }
        assertNotNull(store.get(Key.ofNumber(1)), "reading key 1 makes it the most recently used");
        put(store, 9, 1000);
        assertNull(store.get(Key.ofNumber(2)), "key 2 was the least recently used");
        assertArrayEquals(valueFor(1, 1000), store.get(Key.ofNumber(1)));
        assertArrayEquals(valueFor(9, 1000), store.get(Key.ofNumber(9)));
        JsonNode stats = stats(store);
        assertEquals(1, stats.get("evictions").asLong());
        assertEquals(1, slab(stats, 1024).get("evicted").asLong());
        assertEquals(8, stats.get("entries").asLong());
        assertEquals(8 * KIB, stats.get("capacity").asLong());
    }

    @Test
    void automoveShiftsPagesToTheClassUnderEvictionPressure() throws InterruptedException {
        // 32 pages of 16 KiB. Phase 1 fills every page with 8 KiB values; phase 2 writes only 400-byte values.
        SlabStore store = store(512 * KIB, 16 * KIB, 512, 2, 20, 0);
        for (long key = 1; key <= 200; key++) {
            put(store, key, 8000);
        }
        JsonNode filled = stats(store);
        assertEquals(32, slab(filled, 8192).get("pages").asInt());
        assertEquals(0, filled.get("unassignedPages").asInt());

        long deadline = System.currentTimeMillis() + 10_000;
        for (long key = 1_000; System.currentTimeMillis() < deadline; key = 1_000 + (key + 1) % 5_000) {
            put(store, key, 400);
            if (key % 500 == 0) {
                if (slab(stats(store), 512).get("pages").asInt() == 31) {
                    break;
                }
                Thread.sleep(1);
            }
        }
        JsonNode moved = stats(store);
        int smallPages = slab(moved, 512).get("pages").asInt();
        int bigPages = slab(moved, 8192).get("pages").asInt();
        assertEquals(32, smallPages + bigPages, "pages are moved, never created: " + moved);
        assertEquals(31, smallPages, "the 512-byte class should have taken the idle 8 KiB class's pages: " + moved);
        assertEquals(30, moved.get("pagesMovedByAutomove").asLong(), moved.toString());
        assertEquals(smallPages, slab(moved, 512).get("pagesMovedIn").asLong(),
                "every small page was moved in (the first by put's synchronous steal, the rest by automove)");
        assertEquals(1, bigPages, "the idle class keeps one page while it holds data");
    }

    @Test
    void expiredEntriesAreReclaimedByTheCrawler() throws InterruptedException {
        SlabStore store = store(1 << 20, 64 * KIB, 512, 2, 50, 150);
        for (long key = 1; key <= 100; key++) {
            put(store, key, 700);
        }
        assertNotNull(store.get(Key.ofNumber(5)));
        Thread.sleep(500);
        JsonNode stats = stats(store);
        assertEquals(0, stats.get("entries").asLong(), stats.toString());
        assertEquals(100, stats.get("expirations").asLong());
        assertEquals(0, slab(stats, 1024).get("usedChunks").asLong());
        assertEquals(0, stats.get("evictions").asLong());
        assertNull(store.get(Key.ofNumber(5)));
    }

    @Test
    void concurrentWritersAndReadersNeverSeeAnotherKeysBytes() throws Exception {
        // Small capacity so eviction, page steals and automove all happen while 4 threads race.
        SlabStore store = store(256 * KIB, 16 * KIB, 256, 2, 5, 0);
        AtomicLong reads = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 1500;
        for (int t = 0; t < 4; t++) {
            workers.add(pool.submit(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.currentTimeMillis() < deadline) {
                    long key = random.nextInt(2_000);
                    int length = (int) (key % 7 == 0 ? 6000 : 40 + key % 900);
                    switch (random.nextInt(10)) {
                        case 0 -> store.delete(Key.ofNumber(key));
                        case 1, 2, 3 -> put(store, key, length);
                        default -> {
                            byte[] value = store.get(Key.ofNumber(key));
                            if (value != null) {
                                assertArrayEquals(valueFor(key, length), value, "key " + key);
                                reads.incrementAndGet();
                            }
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        pool.shutdown();
        assertTrue(reads.get() > 1000, "too few verified reads: " + reads);
        JsonNode stats = stats(store);
        long used = 0;
        long pages = 0;
        for (JsonNode row : stats.get("slabs")) {
            used += row.get("usedChunks").asLong();
            pages += row.get("pages").asLong();
            assertTrue(row.get("freeChunks").asLong() >= 0);
        }
        assertEquals(stats.get("entries").asLong(), used, "index and chunks agree: " + stats);
        assertEquals(16, pages + stats.get("unassignedPages").asLong());
    }

    @Test
    void capacityBeyondTheJvmDirectMemoryLimitIsAConfigError() {
        long limit = PageMemory.directMemoryLimit();
        ConfigException e = assertThrows(ConfigException.class, () -> store(limit, 1 << 20, 512, 2, 0, 0));
        assertTrue(e.getMessage().startsWith("kv.offheap.capacity="), e.getMessage());
        assertTrue(e.getMessage().contains("-XX:MaxDirectMemorySize="), e.getMessage());
    }
}
