package dev.jload.kv.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jload.kv.store.KvStore;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;

/**
 * The /stats document: the store's own figures ({@link KvStore#writeStats}), then "config" (the start line's settings),
 * "uptimeMillis" and "jvm" (heap, direct buffers, collectors) so one request shows what the store costs the JVM.
 */
final class StatsReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KvStore store;
    private final String config;
    private final long startMillis = System.currentTimeMillis();

    StatsReport(KvStore store, String config) {
        this.store = store;
        this.config = config;
    }

    byte[] render() {
        ObjectNode root = JSON.createObjectNode();
        store.writeStats(root);
        root.put("config", config);
        root.put("uptimeMillis", System.currentTimeMillis() - startMillis);
        writeJvm(root.putObject("jvm"));
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render /stats", e);
        }
    }

    private static void writeJvm(ObjectNode jvm) {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        jvm.put("heapUsed", heap.getUsed());
        jvm.put("heapCommitted", heap.getCommitted());
        jvm.put("heapMax", heap.getMax());
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                jvm.put("directBuffers", pool.getCount());
                jvm.put("directBytes", pool.getMemoryUsed());
            }
        }
        ArrayNode collectors = jvm.putArray("collectors");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            collectors.addObject()
                    .put("name", gc.getName())
                    .put("count", gc.getCollectionCount())
                    .put("timeMillis", gc.getCollectionTime());
        }
    }
}
