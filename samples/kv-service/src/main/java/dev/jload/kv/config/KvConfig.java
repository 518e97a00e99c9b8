package dev.jload.kv.config;

import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The service's effective configuration, read once at start from {@code -Dkv.*} and {@code -Dje.*} system properties.
 * Defaults, ranges and units are documented in the README's property reference; {@link #describe()} is the one-line
 * summary printed at start.
 *
 * @param store        which store serves the data ({@code kv.store})
 * @param bind         listen address ({@code kv.bind})
 * @param port         listen port, 0 = any free port ({@code kv.port})
 * @param threads      request threads: Netty event loops for heap/offheap, blocking workers for bdb ({@code kv.threads})
 * @param maxValueSize largest value accepted by PUT and random_set ({@code kv.maxValueSize})
 * @param ttlMillis    time to live of an entry, 0 = forever ({@code kv.ttl}; heap and offheap)
 * @param heap         heap store limits
 * @param slab         off-heap slab store geometry
 * @param bdb          Berkeley DB JE settings
 * @param tls          certificate and key for TLS, or null for plain TCP ({@code kv.tls.cert}, {@code kv.tls.key})
 * @param http2        serve HTTP/2 besides HTTP/1.1: h2 by ALPN over TLS, h2c without ({@code kv.http2})
 */
public record KvConfig(StoreKind store, String bind, int port, int threads, int maxValueSize, long ttlMillis,
                       HeapSettings heap, SlabSettings slab, BdbSettings bdb, TlsSettings tls, boolean http2) {

    /** Default share of the JVM's max heap that the heap store may fill (seed 001: 100 % thrashes in Full GCs). */
    public static final int DEFAULT_HEAP_PERCENT = 50;
    /** Default worker threads for the blocking bdb store. */
    public static final int DEFAULT_BDB_THREADS = 16;

    private static final Set<String> KNOWN = Set.of("kv.store", "kv.bind", "kv.port", "kv.threads", "kv.maxValueSize",
            "kv.ttl", "kv.maxMemory", "kv.maxSize", "kv.offheap.capacity", "kv.offheap.page", "kv.offheap.chunk",
            "kv.offheap.factor", "kv.offheap.rebalance", "kv.dir", "kv.shards", "kv.tls.cert", "kv.tls.key", "kv.http2");

    /**
     * Heap store limits: total weighed bytes and entry count.
     *
     * @param maxMemory       upper bound of key + value + per-entry overhead bytes ({@code kv.maxMemory})
     * @param maxMemorySource how maxMemory was chosen, for the start line (e.g. {@code 50% of heap})
     * @param maxSize         upper bound of entries, -1 = none ({@code kv.maxSize})
     */
    public record HeapSettings(long maxMemory, String maxMemorySource, long maxSize) {
    }

    /**
     * Slab store geometry.
     *
     * @param capacity        direct memory reserved for values ({@code kv.offheap.capacity})
     * @param pageSize        page size, the unit moved between classes ({@code kv.offheap.page})
     * @param smallestChunk   chunk size of the first class ({@code kv.offheap.chunk})
     * @param growthFactor    chunk size ratio between neighbouring classes ({@code kv.offheap.factor})
     * @param rebalanceMillis automove period, 0 = never move pages ({@code kv.offheap.rebalance})
     */
    public record SlabSettings(long capacity, int pageSize, int smallestChunk, double growthFactor,
                               long rebalanceMillis) {
    }

    /**
     * Berkeley DB JE settings.
     *
     * @param dir    parent of the shard environments ({@code kv.dir})
     * @param shards number of environments; a key goes to shard hash(key) mod shards ({@code kv.shards})
     * @param je     every {@code je.*} system property, plus the cache default described in the README
     */
    public record BdbSettings(Path dir, int shards, Properties je) {
    }

    /**
     * TLS material, both files read once at start.
     *
     * @param cert PEM certificate chain, the server's own certificate first ({@code kv.tls.cert})
     * @param key  PEM PKCS#8 private key of that certificate, unencrypted ({@code kv.tls.key})
     */
    public record TlsSettings(Path cert, Path key) {
    }

    /**
     * Reads the configuration.
     *
     * @param properties   usually {@link System#getProperties()}
     * @param maxHeapBytes {@code Runtime.maxMemory()}, the base of the heap store's default limit
     * @param cpus         available processors, the default event-loop count
     */
    public static KvConfig from(Properties properties, long maxHeapBytes, int cpus) {
        PropertyReader read = new PropertyReader(properties);
        read.rejectUnknown("kv.", KNOWN);
        StoreKind store = StoreKind.parse("kv.store", read.string("kv.store", "heap"));
        String bind = read.string("kv.bind", "127.0.0.1");
        int port = (int) read.integer("kv.port", 8088, 0, 65_535);
        int defaultThreads = store == StoreKind.BDB ? DEFAULT_BDB_THREADS : Math.max(1, cpus);
        int threads = (int) read.integer("kv.threads", defaultThreads, 1, 1024);
        int maxValueSize = (int) read.bytes("kv.maxValueSize", 1 << 20, 1, 1 << 30);
        long ttl = read.millis("kv.ttl", 0, 365L * 24 * 3_600_000L);
        if (store == StoreKind.BDB && ttl > 0) {
            throw new ConfigException("kv.ttl=" + read.raw("kv.ttl") + " is not supported by kv.store=bdb: leave kv.ttl out"
                    + " (expiry is implemented by the heap and offheap stores)");
        }
        return new KvConfig(store, bind, port, threads, maxValueSize, ttl, heapSettings(read, maxHeapBytes),
                slabSettings(read), bdbSettings(read, properties), tlsSettings(read), read.bool("kv.http2", false));
    }

    /** Null when neither file is given; one without the other is an error naming the missing property. */
    private static TlsSettings tlsSettings(PropertyReader read) {
        String cert = read.string("kv.tls.cert", null);
        String key = read.string("kv.tls.key", null);
        if (cert == null && key == null) {
            return null;
        }
        if (cert == null || key == null) {
            String given = cert != null ? "kv.tls.cert" : "kv.tls.key";
            String missing = cert != null ? "kv.tls.key" : "kv.tls.cert";
            throw new ConfigException(missing + " is missing: " + given + " is set, and TLS needs both kv.tls.cert"
                    + " (PEM certificate chain) and kv.tls.key (PEM PKCS#8 private key), or neither");
        }
        return new TlsSettings(Path.of(cert).toAbsolutePath().normalize(), Path.of(key).toAbsolutePath().normalize());
    }

    private static HeapSettings heapSettings(PropertyReader read, long maxHeapBytes) {
        String raw = read.raw("kv.maxMemory");
        long maxMemory;
        String source;
        if (raw == null || raw.endsWith("%")) {
            long percent = raw == null ? DEFAULT_HEAP_PERCENT : percent(raw);
            maxMemory = Math.max(1L << 20, (maxHeapBytes * percent / 100) >> 20 << 20);
            source = percent + "% of heap";
        } else {
            maxMemory = read.bytes("kv.maxMemory", 0, 1 << 20, 1L << 40);
            source = "kv.maxMemory";
        }
        long maxSize = read.integer("kv.maxSize", -1, -1, Long.MAX_VALUE);
        if (maxSize == 0) {
            throw new ConfigException("kv.maxSize=0 would keep no entry: expected -1 (no limit) or a positive count");
        }
        return new HeapSettings(maxMemory, source, maxSize);
    }

    private static long percent(String raw) {
        String digits = raw.substring(0, raw.length() - 1).trim();
        try {
            long percent = Long.parseLong(digits);
            if (percent >= 1 && percent <= 100) {
                return percent;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException("kv.maxMemory=" + raw + " is not a heap share: expected 1%..100% or a size like 800m");
    }

    private static SlabSettings slabSettings(PropertyReader read) {
        int page = (int) read.bytes("kv.offheap.page", 1 << 20, 1 << 10, 1 << 30);
        long capacity = read.bytes("kv.offheap.capacity", 860L << 20, page, 1L << 40);
        int chunk = (int) read.bytes("kv.offheap.chunk", 512, 16, page);
        double factor = read.decimal("kv.offheap.factor", 2.0, 1.0, 64.0);
        long rebalance = read.millis("kv.offheap.rebalance", 1_000, 3_600_000L);
        return new SlabSettings(capacity, page, chunk, factor, rebalance);
    }

    private static BdbSettings bdbSettings(PropertyReader read, Properties properties) {
        Path dir = Path.of(read.string("kv.dir", "kv-data")).toAbsolutePath().normalize();
        int shards = (int) read.integer("kv.shards", 4, 1, 256);
        Properties je = new Properties();
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith("je.")) {
                je.setProperty(name, properties.getProperty(name).trim());
            }
        }
        if (!je.containsKey("je.maxMemory") && !je.containsKey("je.maxMemoryPercent")
                && !je.containsKey("je.sharedCache")) {
            je.setProperty("je.maxMemoryPercent", Integer.toString(Math.max(1, DEFAULT_HEAP_PERCENT / shards)));
        }
        return new BdbSettings(dir, shards, je);
    }

    /**
     * The settings as {@code key=value} tokens for the start line and /stats; values with spaces are double-quoted,
     * e.g. {@code store=heap bind=127.0.0.1 tls=off http2=off threads=2 maxValueSize=1m maxMemory=64m ...}.
     */
    public String describe() {
        String common = "store=" + store.propertyValue() + " bind=" + bind + " tls=" + onOff(tls != null)
                + " http2=" + onOff(http2) + " threads=" + threads
                + " maxValueSize=" + Sizes.formatBytes(maxValueSize);
        return common + " " + switch (store) {
            case HEAP -> "maxMemory=" + Sizes.formatBytes(heap.maxMemory) + " maxMemorySource=\"" + heap.maxMemorySource
                    + "\" maxSize=" + heap.maxSize + " ttl=" + Sizes.formatMillis(ttlMillis);
            case OFFHEAP -> "capacity=" + Sizes.formatBytes(slab.capacity) + " page=" + Sizes.formatBytes(slab.pageSize)
                    + " chunk=" + slab.smallestChunk + " factor=" + slab.growthFactor
                    + " rebalance=" + Sizes.formatMillis(slab.rebalanceMillis) + " ttl=" + Sizes.formatMillis(ttlMillis);
            case BDB -> "dir=\"" + bdb.dir + "\" shards=" + bdb.shards + " je=\"" + new TreeMap<>(bdb.je) + "\"";
        };
    }

    private static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
