package dev.jload.kv.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Property parsing: units, defaults, and a one-line message naming the property for every bad value. */
class KvConfigTest {
    private static final long HEAP = 1L << 30;

    private static KvConfig read(String... pairs) {
        Properties properties = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            properties.setProperty(pairs[i], pairs[i + 1]);
        }
        return KvConfig.from(properties, HEAP, 2);
    }

    @Test
    void sizesAndDurationsAcceptTheDocumentedUnits() {
        assertEquals(800L << 20, Sizes.parseBytes("p", "800m"));
        assertEquals(1L << 30, Sizes.parseBytes("p", "1G"));
        assertEquals(512L << 10, Sizes.parseBytes("p", "512k"));
        assertEquals(512L << 10, Sizes.parseBytes("p", "512KB"));
        assertEquals(123, Sizes.parseBytes("p", "123"));
        assertEquals(3000, Sizes.parseMillis("p", "3s"));
        assertEquals(3000, Sizes.parseMillis("p", "3"));
        assertEquals(250, Sizes.parseMillis("p", "250ms"));
        assertEquals(120_000, Sizes.parseMillis("p", "2m"));
        assertEquals("1m", Sizes.formatBytes(1 << 20));
        assertEquals("1536", Sizes.formatBytes(1536));
        assertEquals("1500ms", Sizes.formatMillis(1500));
    }

    @Test
    void defaultsFollowTheIssue() {
        KvConfig config = read();
        assertEquals(StoreKind.HEAP, config.store());
        assertEquals("127.0.0.1", config.bind());
        assertEquals(8088, config.port());
        assertEquals(2, config.threads());
        assertEquals(1 << 20, config.maxValueSize());
        assertEquals(HEAP / 2, config.heap().maxMemory());
        assertEquals(-1, config.heap().maxSize());
        assertEquals(860L << 20, config.slab().capacity());
        assertEquals(1 << 20, config.slab().pageSize());
        assertEquals(512, config.slab().smallestChunk());
        assertEquals(2.0, config.slab().growthFactor());
        assertEquals(0, config.ttlMillis());
        assertEquals(4, config.bdb().shards());
        assertEquals(KvConfig.DEFAULT_BDB_THREADS, read("kv.store", "bdb").threads());
        assertNull(config.tls());
        assertFalse(config.http2());
        assertTrue(config.describe().contains(" tls=off http2=off "), config.describe());
    }

    @Test
    void tlsTakesBothFilesAndHttp2IsABoolean() {
        KvConfig config = read("kv.tls.cert", "/etc/kv/cert.pem", "kv.tls.key", "/etc/kv/key.pem", "kv.http2", "true");
        assertEquals(Path.of("/etc/kv/cert.pem"), config.tls().cert());
        assertEquals(Path.of("/etc/kv/key.pem"), config.tls().key());
        assertTrue(config.http2());
        assertTrue(config.describe().contains(" tls=on http2=on "), config.describe());
        assertFalse(read("kv.http2", "false").http2());
    }

    @Test
    void maxMemoryTakesASizeOrAHeapShare() {
        assertEquals(800L << 20, read("kv.maxMemory", "800m").heap().maxMemory());
        assertEquals(HEAP * 80 / 100 >> 20 << 20, read("kv.maxMemory", "80%").heap().maxMemory());
        assertTrue(read("kv.maxMemory", "80%").describe().contains("maxMemorySource=\"80% of heap\""));
    }

    @Test
    void describeNamesTheStoreSettings() {
        String line = read("kv.store", "offheap", "kv.offheap.capacity", "64m", "kv.ttl", "3s").describe();
        assertTrue(line.contains("store=offheap"), line);
        assertTrue(line.contains("capacity=64m"), line);
        assertTrue(line.contains("ttl=3s"), line);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "kv.store|redis|kv.store=redis is not a store: expected heap, offheap or bdb",
        "kv.port|80000|kv.port=80000 is out of range: expected 0..65535",
        "kv.port|http|kv.port=http is not an integer: expected 0..65535",
        "kv.threads|0|kv.threads=0 is out of range: expected 1..1024",
        "kv.maxValueSize|2g|kv.maxValueSize=2g is out of range: expected 1..1g",
        "kv.maxValueSize|lots|kv.maxValueSize=lots is not a size: expected bytes like 1048576, 512k, 800m or 1g",
        "kv.maxMemory|150%|kv.maxMemory=150% is not a heap share: expected 1%..100% or a size like 800m",
        "kv.maxSize|0|kv.maxSize=0 would keep no entry: expected -1 (no limit) or a positive count",
        "kv.maxSize|-5|kv.maxSize=-5 is out of range: expected -1..9223372036854775807",
        "kv.ttl|soon|kv.ttl=soon is not a duration: expected 0, 3s, 500ms, 2m or 1h",
        "kv.offheap.page|100|kv.offheap.page=100 is out of range: expected 1k..1g",
        "kv.offheap.factor|1|kv.offheap.factor=1 is out of range: expected a number above 1.0 and at most 64.0",
        "kv.offheap.factor|x|kv.offheap.factor=x is not a number: expected e.g. 1.25 or 2",
        "kv.shards|0|kv.shards=0 is out of range: expected 1..256",
        "kv.http2|yes|kv.http2=yes is not a boolean: expected true or false",
        "kv.tls.cert|cert.pem|kv.tls.key is missing: kv.tls.cert is set, and TLS needs both kv.tls.cert (PEM"
                + " certificate chain) and kv.tls.key (PEM PKCS#8 private key), or neither",
        "kv.tls.key|key.pem|kv.tls.cert is missing: kv.tls.key is set, and TLS needs both kv.tls.cert (PEM"
                + " certificate chain) and kv.tls.key (PEM PKCS#8 private key), or neither",
        "kv.maxmemory|1g|unknown property kv.maxmemory: known kv.* properties are kv.bind, kv.dir, kv.http2,"
                + " kv.maxMemory, kv.maxSize, kv.maxValueSize, kv.offheap.capacity, kv.offheap.chunk,"
                + " kv.offheap.factor, kv.offheap.page, kv.offheap.rebalance, kv.port, kv.shards, kv.store,"
                + " kv.threads, kv.tls.cert, kv.tls.key, kv.ttl",
    })
    void badValuesNameThePropertyAndTheExpectation(String property, String value, String message) {
        ConfigException e = assertThrows(ConfigException.class, () -> read(property, value));
        assertEquals(message, e.getMessage());
    }

    @Test
    void ttlIsRejectedForBdb() {
        ConfigException e = assertThrows(ConfigException.class, () -> read("kv.store", "bdb", "kv.ttl", "3s"));
        assertTrue(e.getMessage().startsWith("kv.ttl=3s is not supported by kv.store=bdb"), e.getMessage());
    }
}
