package dev.jload.kv.store.bdb;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sleepycat.je.EnvironmentStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The Berkeley DB JE statistics /stats reports, summed over the shard environments: the in-heap cache (JE's main
 * cache), the off-heap cache ({@code je.maxOffHeapMemory}) and the log. Field names are JE's getter names without
 * "get", so they can be looked up in JE's EnvironmentStats documentation.
 */
final class JeStatsSum {
    private static final Map<String, ToLongFunction<EnvironmentStats>> CACHE = new LinkedHashMap<>();
    private static final Map<String, ToLongFunction<EnvironmentStats>> OFF_HEAP = new LinkedHashMap<>();
    private static final Map<String, ToLongFunction<EnvironmentStats>> LOG = new LinkedHashMap<>();

    static {
        CACHE.put("cacheTotalBytes", EnvironmentStats::getCacheTotalBytes);
        CACHE.put("dataBytes", EnvironmentStats::getDataBytes);
        CACHE.put("lockBytes", EnvironmentStats::getLockBytes);
        CACHE.put("nCacheMiss", EnvironmentStats::getNCacheMiss);
        CACHE.put("nNotResident", EnvironmentStats::getNNotResident);
        CACHE.put("nLNsFetchMiss", EnvironmentStats::getNLNsFetchMiss);
        CACHE.put("nBINsFetchMiss", EnvironmentStats::getNBINsFetchMiss);
        CACHE.put("nNodesEvicted", EnvironmentStats::getNNodesEvicted);
        CACHE.put("nLNsEvicted", EnvironmentStats::getNLNsEvicted);
        CACHE.put("nEvictionRuns", EnvironmentStats::getNEvictionRuns);
        CACHE.put("nCachedBINs", EnvironmentStats::getNCachedBINs);
        CACHE.put("nCachedUpperINs", EnvironmentStats::getNCachedUpperINs);
        OFF_HEAP.put("offHeapTotalBytes", EnvironmentStats::getOffHeapTotalBytes);
        OFF_HEAP.put("offHeapCachedLNs", EnvironmentStats::getOffHeapCachedLNs);
        OFF_HEAP.put("offHeapCachedBINs", EnvironmentStats::getOffHeapCachedBINs);
        OFF_HEAP.put("offHeapLNsStored", EnvironmentStats::getOffHeapLNsStored);
        OFF_HEAP.put("offHeapLNsLoaded", EnvironmentStats::getOffHeapLNsLoaded);
        OFF_HEAP.put("offHeapLNsEvicted", EnvironmentStats::getOffHeapLNsEvicted);
        OFF_HEAP.put("offHeapNodesEvicted", EnvironmentStats::getOffHeapNodesEvicted);
        OFF_HEAP.put("offHeapAllocFailures", EnvironmentStats::getOffHeapAllocFailures);
        OFF_HEAP.put("offHeapAllocOverflows", EnvironmentStats::getOffHeapAllocOverflows);
        LOG.put("totalLogSize", EnvironmentStats::getTotalLogSize);
        LOG.put("nLogFSyncs", EnvironmentStats::getNLogFSyncs);
        LOG.put("activeLogSize", EnvironmentStats::getActiveLogSize);
    }

    private final Map<String, Long> sums = new LinkedHashMap<>();
    private long cacheBudget;

    /** Adds one environment's statistics and its in-heap cache budget ({@code EnvironmentConfig.getCacheSize()}). */
    void add(EnvironmentStats stats, long cacheBudgetBytes) {
        for (Map<String, ToLongFunction<EnvironmentStats>> group : List.of(CACHE, OFF_HEAP, LOG)) {
            group.forEach((name, getter) -> sums.merge(name, getter.applyAsLong(stats), Long::sum));
        }
        cacheBudget += cacheBudgetBytes;
    }

    long totalLogSize() {
        return sums.getOrDefault("totalLogSize", 0L);
    }

    /** {@code {"cache": {...}, "offHeap": {...}, "log": {...}}} with the summed figures. */
    ObjectNode toJson(ObjectNode node) {
        ObjectNode cache = node.putObject("cache");
        cache.put("cacheBudgetBytes", cacheBudget);
        CACHE.keySet().forEach(name -> cache.put(name, sums.getOrDefault(name, 0L)));
        ObjectNode offHeap = node.putObject("offHeap");
        OFF_HEAP.keySet().forEach(name -> offHeap.put(name, sums.getOrDefault(name, 0L)));
        ObjectNode log = node.putObject("log");
        LOG.keySet().forEach(name -> log.put(name, sums.getOrDefault(name, 0L)));
        return node;
    }

    /** The per-shard row: cache, off-heap cache and log bytes. */
    static void writeShard(ObjectNode row, EnvironmentStats stats) {
        row.put("cacheTotalBytes", stats.getCacheTotalBytes());
        row.put("offHeapTotalBytes", stats.getOffHeapTotalBytes());
        row.put("totalLogSize", stats.getTotalLogSize());
    }
}
