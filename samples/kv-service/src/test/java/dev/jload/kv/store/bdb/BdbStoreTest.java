package dev.jload.kv.store.bdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jload.kv.config.ConfigException;
import dev.jload.kv.config.KvConfig;
import dev.jload.kv.config.KvConfig.BdbSettings;
import dev.jload.kv.store.Key;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Berkeley DB JE shards on real files in a temporary directory. */
class BdbStoreTest {
    @TempDir
    Path dir;

    private BdbSettings settings(int shards, String... jeProperties) {
        Properties properties = new Properties();
        properties.setProperty("kv.store", "bdb");
        properties.setProperty("kv.dir", dir.toString());
        properties.setProperty("kv.shards", Integer.toString(shards));
        for (int i = 0; i < jeProperties.length; i += 2) {
            properties.setProperty(jeProperties[i], jeProperties[i + 1]);
        }
        return KvConfig.from(properties, 512L << 20, 2).bdb();
    }

    private static byte[] value(int key) {
        return ("value-" + key + "-" + "x".repeat(key % 50)).getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode stats(BdbStore store) {
        ObjectNode node = new ObjectMapper().createObjectNode();
        store.writeStats(node);
        return node;
    }

    @Test
    void dataSurvivesCloseAndReopenAcrossShards() {
        BdbStore store = new BdbStore(settings(3));
        for (int key = 1; key <= 2000; key++) {
            byte[] v = value(key);
            store.put(Key.ofNumber(key), v, 0, v.length);
        }
        assertTrue(store.delete(Key.ofNumber(5)));
        assertFalse(store.delete(Key.ofNumber(5)));
        store.close();
        for (int shard = 0; shard < 3; shard++) {
            assertTrue(Files.isDirectory(dir.resolve("shard-" + shard)), "shard-" + shard);
        }

        BdbStore reopened = new BdbStore(settings(3));
        try {
            for (int key = 1; key <= 2000; key++) {
                if (key == 5) {
                    assertNull(reopened.get(Key.ofNumber(key)));
                } else {
                    assertArrayEquals(value(key), reopened.get(Key.ofNumber(key)), "key " + key);
                }
            }
            JsonNode stats = stats(reopened);
            assertEquals(1999, stats.get("entries").asLong());
            assertEquals(1999, stats.get("hits").asLong());
            assertEquals(1, stats.get("misses").asLong());
            long perShard = 0;
            for (JsonNode shard : stats.get("shards")) {
                perShard += shard.get("entries").asLong();
                assertTrue(shard.get("entries").asLong() > 500, "keys spread over shards: " + shard);
            }
            assertEquals(1999, perShard);
            assertTrue(stats.get("bytesUsed").asLong() > 2000 * 10, "log bytes on disk");
        } finally {
            reopened.close();
        }
    }

    @Test
    void jePropertiesReachEveryEnvironment() {
        BdbStore store = new BdbStore(settings(2, "je.maxMemory", "8388608", "je.maxOffHeapMemory", "4194304"));
        try {
            JsonNode je = stats(store).get("je");
            assertEquals(2 * 8388608L, je.get("cache").get("cacheBudgetBytes").asLong());
            assertTrue(je.get("cache").get("cacheTotalBytes").asLong() > 0);
            assertTrue(je.has("offHeap") && je.get("offHeap").has("offHeapTotalBytes"));
        } finally {
            store.close();
        }
    }

    @Test
    void defaultCacheShareIsSplitOverShards() {
        BdbSettings settings = settings(4);
        assertEquals("12", settings.je().getProperty("je.maxMemoryPercent"));
        assertEquals("30", settings(4, "je.maxMemoryPercent", "30").je().getProperty("je.maxMemoryPercent"));
    }

    @Test
    void unknownOrInvalidJePropertyIsAConfigError() {
        ConfigException unknown = assertThrows(ConfigException.class,
                () -> new BdbStore(settings(1, "je.noSuchParameter", "1")));
        assertTrue(unknown.getMessage().contains("je.noSuchParameter"), unknown.getMessage());
        ConfigException invalid = assertThrows(ConfigException.class,
                () -> new BdbStore(settings(1, "je.maxMemoryPercent", "lots")));
        assertTrue(invalid.getMessage().contains("je.maxMemoryPercent"), invalid.getMessage());
    }
}
