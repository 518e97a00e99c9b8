package dev.jload.kv.store.slab;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The slab store's background thread, like memcached's slab_automove plus its LRU crawler. Every period it
 *
 * <ul>
 *   <li>reclaims expired entries page by page (when a TTL is set), so expired values free their chunks even if nobody
 *       reads them;</li>
 *   <li>moves one page to the class with the most LRU evictions over the last {@link #WINDOW} periods, taken from a
 *       class that had no eviction in that window (preferring the one with most free chunks, then most pages, and
 *       leaving a class in use at least one page).</li>
 * </ul>
 */
final class SlabAutomove implements AutoCloseable {
    /** Periods of eviction history the decision looks at. */
    static final int WINDOW = 3;
    /** Crawl period when automove is off but a TTL is set. */
    private static final long CRAWL_ONLY_MILLIS = 1_000;

    private final SlabStore store;
    private final boolean rebalance;
    private final boolean crawl;
    private final ScheduledExecutorService timer;
    private final long[] lastEvicted;
    private final long[][] history;
    private final AtomicLong pagesMoved = new AtomicLong();
    private int period;

    SlabAutomove(SlabStore store, long periodMillis, boolean crawl) {
        this.store = store;
        this.rebalance = periodMillis > 0;
        this.crawl = crawl;
        int classCount = store.classes().length;
        this.lastEvicted = new long[classCount];
        this.history = new long[WINDOW][classCount];
        if (rebalance || crawl) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "slab-automove");
                t.setDaemon(true);
                return t;
            });
            long every = rebalance ? periodMillis : CRAWL_ONLY_MILLIS;
            timer.scheduleWithFixedDelay(this::runPeriod, every, every, TimeUnit.MILLISECONDS);
        } else {
            timer = null;
        }
    }

    long pagesMoved() {
        return pagesMoved.get();
    }

    private void runPeriod() {
        try {
            if (crawl) {
                crawlExpired();
            }
            if (rebalance) {
                rebalanceOnce();
            }
        } catch (RuntimeException e) {
            System.err.println("kv-service: slab automove failed: " + e);
        }
    }

    /** Visits every page of every class once, each under its class lock, and expires what is due. */
    void crawlExpired() {
        for (SlabClass slabClass : store.classes()) {
            int[] pages;
            slabClass.lock.lock();
            try {
                pages = slabClass.pagesSnapshot();
            } finally {
                slabClass.lock.unlock();
            }
            for (int page : pages) {
                slabClass.lock.lock();
                try {
                    if (slabClass.ownsPage(page)) {
                        slabClass.reclaimExpired(page, System.currentTimeMillis());
                    }
                } finally {
                    slabClass.lock.unlock();
                }
            }
        }
    }

    /** One automove decision; returns true when a page moved. */
    boolean rebalanceOnce() {
        SlabClass[] classes = store.classes();
        int n = classes.length;
        long[] recent = new long[n];
        long[] latest = new long[n];
        int[] pages = new int[n];
        long[] free = new long[n];
        long[] used = new long[n];
        long[] slot = history[period++ % WINDOW];
        for (int i = 0; i < n; i++) {
            SlabClass c = classes[i];
            c.lock.lock();
            try {
                latest[i] = c.evicted() - lastEvicted[i];
                lastEvicted[i] = c.evicted();
                pages[i] = c.pageCount();
                free[i] = c.freeChunks();
                used[i] = c.usedChunks();
            } finally {
                c.lock.unlock();
            }
            slot[i] = latest[i];
            for (long[] past : history) {
                recent[i] += past[i];
            }
        }
        int receiver = -1;
        for (int i = 0; i < n; i++) {
            if (latest[i] > 0 && (receiver < 0 || recent[i] > recent[receiver])) {
                receiver = i;
            }
        }
        if (receiver < 0) {
            return false;
        }
        int donor = -1;
        for (int i = 0; i < n; i++) {
            boolean canGive = recent[i] == 0 && (pages[i] >= 2 || (pages[i] == 1 && used[i] == 0));
            if (i != receiver && canGive && (donor < 0 || free[i] > free[donor]
                    || (free[i] == free[donor] && pages[i] > pages[donor]))) {
                donor = i;
            }
        }
        if (donor < 0 || !store.movePage(classes[donor], classes[receiver])) {
            return false;
        }
        pagesMoved.incrementAndGet();
        return true;
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
