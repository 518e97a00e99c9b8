package dev.jload.kv.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every endpoint and every kind of bad input, over real sockets against the real Netty server. */
class HttpServerTest {
    private static final int MAX_VALUE = 64 << 10;
    private static TestServer heap;

    @BeforeAll
    static void start() throws InterruptedException {
        heap = new TestServer("kv.store", "heap", "kv.maxValueSize", "64k", "kv.maxMemory", "16m");
    }

    @AfterAll
    static void stop() {
        heap.close();
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    @Test
    void healthAnswersOk() throws Exception {
        HttpResponse<byte[]> response = heap.get("/health");
        assertEquals(200, response.statusCode());
        assertEquals("ok\n", text(response));
    }

    @Test
    void randomSetThenRandomGetReturnsTheRandomValue() throws Exception {
        HttpResponse<byte[]> set = heap.get("/random_set?keyRange=1&valueSize=100");
        assertEquals(200, set.statusCode());
        assertEquals("stored key 1 (100 bytes)\n", text(set));
        HttpResponse<byte[]> first = heap.get("/random_get?keyRange=1");
        assertEquals(200, first.statusCode());
        assertEquals("hit", first.headers().firstValue("x-kv").orElseThrow());
        assertEquals("application/octet-stream", first.headers().firstValue("content-type").orElseThrow());
        assertEquals(100, first.body().length);
        heap.get("/random_set?keyRange=1&valueSize=100");
        byte[] second = heap.get("/random_get?keyRange=1").body();
        assertFalse(Arrays.equals(first.body(), second), "each random_set stores different random bytes");
        HttpResponse<byte[]> empty = heap.get("/random_set?keyRange=1&valueSize=0");
        assertEquals(200, empty.statusCode());
        assertEquals(0, heap.get("/random_get?keyRange=1").body().length);
    }

    @Test
    void randomKeysStayInsideTheRange() throws Exception {
        Pattern stored = Pattern.compile("stored key (\\d+) \\(8 bytes\\)\n");
        for (int i = 0; i < 50; i++) {
            Matcher m = stored.matcher(text(heap.get("/random_set?keyRange=3&valueSize=8")));
            assertTrue(m.matches());
            long key = Long.parseLong(m.group(1));
            assertTrue(key >= 1 && key <= 3, "key " + key);
        }
    }

    @Test
    void randomGetMissSaysSo() throws Exception {
        HttpResponse<byte[]> miss = heap.get("/random_get?keyRange=2147483647");
        if (miss.statusCode() == 404) {
            assertEquals("miss", miss.headers().firstValue("x-kv").orElseThrow());
            assertTrue(text(miss).matches("miss: key \\d+ is not stored\n"), text(miss));
        } else {
            throw new AssertionError("a random key out of 2^31-1 was found: " + text(miss));
        }
    }

    @Test
    void randomMgetListsEveryRequestedKey() throws Exception {
        heap.send("PUT", "/kv/1", "one".getBytes(StandardCharsets.UTF_8));
        HttpResponse<byte[]> hits = heap.get("/random_mget?keyRange=1&keyNum=2");
        assertEquals(200, hits.statusCode());
        assertEquals("VALUE 1 3\r\none\r\nVALUE 1 3\r\none\r\nEND 2 2\r\n", text(hits));
        assertEquals("2", hits.headers().firstValue("x-kv-found").orElseThrow());
        assertEquals("2", hits.headers().firstValue("x-kv-requested").orElseThrow());

        String misses = text(heap.get("/random_mget?keyRange=2147483647&keyNum=3"));
        assertTrue(misses.matches("(MISS \\d+\r\n){3}END 0 3\r\n"), misses);

        heap.send("PUT", "/kv/2", new byte[0]);
        String mixed = text(heap.get("/random_mget?keyRange=3&keyNum=1000"));
        assertTrue(mixed.contains("VALUE 1 3\r\none\r\n") && mixed.contains("VALUE 2 0\r\n\r\n")
                && mixed.contains("MISS 3\r\n"), "all three keys drawn among 1000");
        String[] lines = mixed.split("\r\n");
        String end = lines[lines.length - 1];
        assertEquals(1000, mixed.split("(MISS|VALUE) ", -1).length - 1, "one item per requested key");
        assertTrue(end.matches("END \\d+ 1000"), end);
    }

    @Test
    void keyValueEndpointsStoreReadAndDelete() throws Exception {
        byte[] value = new byte[5000];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) i;
        }
        HttpResponse<byte[]> put = heap.send("PUT", "/kv/hello%20world", value);
        assertEquals(200, put.statusCode());
        assertEquals("stored key hello world (5000 bytes)\n", text(put));
        HttpResponse<byte[]> get = heap.get("/kv/hello%20world");
        assertEquals(200, get.statusCode());
        assertArrayEquals(value, get.body());
        assertEquals(200, heap.send("DELETE", "/kv/hello%20world", null).statusCode());
        HttpResponse<byte[]> gone = heap.get("/kv/hello%20world");
        assertEquals(404, gone.statusCode());
        assertEquals("miss: key hello world is not stored\n", text(gone));
        assertEquals(404, heap.send("DELETE", "/kv/hello%20world", null).statusCode());
        assertEquals(200, heap.send("PUT", "/kv/max", new byte[MAX_VALUE]).statusCode());
    }

    @Test
    void randomSetKeysAreReadableThroughKvPath() throws Exception {
        heap.get("/random_set?keyRange=1&valueSize=33");
        assertEquals(33, heap.get("/kv/1").body().length);
    }

    @Test
    void statsIsJsonWithTheSummaryAndJvmFields() throws Exception {
        heap.get("/random_get?keyRange=1");
        HttpResponse<byte[]> response = heap.get("/stats");
        assertEquals(200, response.statusCode());
        assertEquals("application/json", response.headers().firstValue("content-type").orElseThrow());
        JsonNode stats = new ObjectMapper().readTree(response.body());
        for (String field : new String[] {"store", "entries", "bytesUsed", "capacity", "hits", "misses", "hitRatio",
                "evictions", "expirations", "config", "uptimeMillis"}) {
            assertTrue(stats.has(field), field + " in " + stats);
        }
        assertEquals("heap", stats.get("store").asText());
        assertEquals(16 << 20, stats.get("capacity").asLong());
        assertTrue(stats.get("jvm").get("heapMax").asLong() > 0);
        assertTrue(stats.get("jvm").get("collectors").size() >= 1);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        "GET|/random_get|400|missing query parameter keyRange: expected an integer 1..2147483647",
        "GET|/random_get?keyRange=|400|missing query parameter keyRange: expected an integer 1..2147483647",
        "GET|/random_get?keyRange=abc|400|keyRange=abc is not an integer 1..2147483647",
        "GET|/random_get?keyRange=0|400|keyRange=0 is out of range: expected an integer 1..2147483647",
        "GET|/random_get?keyRange=-1|400|keyRange=-1 is out of range: expected an integer 1..2147483647",
        "GET|/random_get?keyRange=2147483648|400|keyRange=2147483648 is out of range: expected an integer"
                + " 1..2147483647",
        "GET|/random_get?keyRange=99999999999999999999|400|keyRange=99999999999999999999 is not an integer"
                + " 1..2147483647",
        "GET|/random_get?keyRange=1.5|400|keyRange=1.5 is not an integer 1..2147483647",
        "GET|/random_set?keyRange=10|400|missing query parameter valueSize: expected an integer 0..65536",
        "GET|/random_set?keyRange=10&valueSize=-1|400|valueSize=-1 is out of range: expected an integer 0..65536",
        "GET|/random_set?keyRange=10&valueSize=65537|400|valueSize=65537 is out of range: expected an integer"
                + " 0..65536",
        "GET|/random_set?keyRange=10&valueSize=2147483648000|400|valueSize=2147483648000 is out of range: expected"
                + " an integer 0..65536",
        "GET|/random_set?valueSize=10|400|missing query parameter keyRange: expected an integer 1..2147483647",
        "GET|/random_mget?keyRange=10|400|missing query parameter keyNum: expected an integer 1..1000",
        "GET|/random_mget?keyRange=10&keyNum=0|400|keyNum=0 is out of range: expected an integer 1..1000",
        "GET|/random_mget?keyRange=10&keyNum=1001|400|keyNum=1001 is out of range: expected an integer 1..1000",
        "GET|/random_mget?keyRange=0&keyNum=5|400|keyRange=0 is out of range: expected an integer 1..2147483647",
        "GET|/nope|404|no such path /nope: endpoints are /random_set, /random_get, /random_mget, /kv/{key}, /stats,"
                + " /health",
        "GET|/|404|no such path /: endpoints are /random_set, /random_get, /random_mget, /kv/{key}, /stats, /health",
        "GET|/kv/|400|missing key: use /kv/{key} with a key of 1..250 bytes",
        "POST|/random_get?keyRange=1|405|method POST is not allowed on /random_get: use GET",
        "PUT|/random_set?keyRange=1&valueSize=1|405|method PUT is not allowed on /random_set: use GET",
        "DELETE|/random_mget?keyRange=1&keyNum=1|405|method DELETE is not allowed on /random_mget: use GET",
        "POST|/stats|405|method POST is not allowed on /stats: use GET",
        "DELETE|/health|405|method DELETE is not allowed on /health: use GET",
        "POST|/kv/a|405|method POST is not allowed on /kv/{key}: use GET, PUT, DELETE",
        "PATCH|/kv/a|405|method PATCH is not allowed on /kv/{key}: use GET, PUT, DELETE",
    })
    void badInputGetsAOneLine4xx(String method, String path, int status, String message) throws Exception {
        HttpResponse<byte[]> response = heap.send(method, path, null);
        assertEquals(status, response.statusCode(), text(response));
        assertEquals(message + "\n", text(response));
        assertEquals("text/plain; charset=utf-8", response.headers().firstValue("content-type").orElseThrow());
        if (status == 405) {
            assertTrue(response.headers().firstValue("allow").isPresent());
        }
    }

    @Test
    void tooLongKeyAndTooLargeBodyAreRefused() throws Exception {
        HttpResponse<byte[]> longKey = heap.get("/kv/" + "k".repeat(251));
        assertEquals(400, longKey.statusCode());
        assertEquals("key " + "k".repeat(40) + "… is longer than 250 bytes\n", text(longKey));
        HttpResponse<byte[]> tooLarge = heap.send("PUT", "/kv/big", new byte[MAX_VALUE + 1]);
        assertEquals(413, tooLarge.statusCode());
        assertEquals("request body larger than kv.maxValueSize=64k: send a smaller value or raise kv.maxValueSize\n",
                text(tooLarge));
        assertEquals(200, heap.get("/health").statusCode(), "the server still serves");
    }

    @Test
    void malformedRequestsOverARawSocketGet4xx() throws Exception {
        String garbage = raw("GARBAGE\r\n\r\n");
        assertTrue(garbage.startsWith("HTTP/1.1 400 ") && garbage.contains("malformed HTTP request"), garbage);
        String badEscape = raw("GET /random_get?keyRange=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(badEscape.startsWith("HTTP/1.1 400 "), badEscape);
        assertTrue(badEscape.contains("malformed URI /random_get?keyRange=%zz"), badEscape);
        String longLine = raw("GET /random_get?keyRange=" + "1".repeat(5000) + " HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(longLine.startsWith("HTTP/1.1 431 "), longLine);
        String control = raw("GET /kv/a%01b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(control.startsWith("HTTP/1.1 400 ") && control.contains("contains control characters"), control);
    }

    @Test
    void keepAliveServesPipelinedRequestsInOrderOnOneConnection() throws Exception {
        heap.send("PUT", "/kv/first", "1".getBytes(StandardCharsets.UTF_8));
        heap.send("PUT", "/kv/second", "22".getBytes(StandardCharsets.UTF_8));
        String responses = raw("GET /kv/first HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /kv/second HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        int first = responses.indexOf("\r\n\r\n1");
        int second = responses.indexOf("\r\n\r\n22");
        int third = responses.indexOf("ok\n");
        assertTrue(first > 0 && second > first && third > second, responses);
        assertEquals(3, responses.split("HTTP/1.1 200 OK", -1).length - 1, responses);
    }

    @Test
    void http10WithoutKeepAliveIsClosedAfterTheResponse() throws Exception {
        String response = raw("GET /health HTTP/1.0\r\n\r\n");
        assertTrue(response.startsWith("HTTP/1.1 200 OK"), response);
        assertTrue(response.toLowerCase().contains("connection: close"), response);
    }

    /** Writes {@code request} on a fresh socket and reads until the server closes it (at most 5 s). */
    private static String raw(String request) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", heap.port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    received.write(buffer, 0, n);
                }
            } catch (java.net.SocketTimeoutException e) {
                // keep-alive connection left open: what arrived is the answer
            }
            return received.toString(StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void offheapStoreServesAndRejectsValuesLargerThanAPage() throws Exception {
        try (TestServer offheap = new TestServer("kv.store", "offheap", "kv.offheap.capacity", "4m",
                "kv.offheap.page", "16k", "kv.maxValueSize", "64k")) {
            assertEquals(200, offheap.get("/random_set?keyRange=1&valueSize=1000").statusCode());
            assertEquals(1000, offheap.get("/random_get?keyRange=1").body().length);
            HttpResponse<byte[]> tooBig = offheap.get("/random_set?keyRange=1&valueSize=20000");
            assertEquals(413, tooBig.statusCode());
            assertEquals("value of 20000 bytes is larger than kv.offheap.page=16k: raise kv.offheap.page or send"
                    + " smaller values\n", text(tooBig));
            JsonNode stats = new ObjectMapper().readTree(offheap.get("/stats").body());
            assertEquals("offheap", stats.get("store").asText());
            assertEquals(4 << 20, stats.get("capacity").asLong());
            JsonNode row = stats.get("slabs").get(1);
            for (String field : new String[] {"chunkSize", "pages", "chunksPerPage", "usedChunks", "freeChunks",
                    "evicted"}) {
                assertTrue(row.has(field), field);
            }
            assertEquals(1, row.get("usedChunks").asLong());
        }
    }

    @Test
    void bdbStoreServesThroughTheWorkerThreads(@TempDir Path dir) throws Exception {
        try (TestServer bdb = new TestServer("kv.store", "bdb", "kv.dir", dir.toString(), "kv.shards", "2",
                "kv.threads", "3")) {
            for (int i = 0; i < 20; i++) {
                assertEquals(200, bdb.get("/random_set?keyRange=5&valueSize=50").statusCode());
            }
            String mget = text(bdb.get("/random_mget?keyRange=5&keyNum=10"));
            assertTrue(mget.endsWith(" 10\r\n") && mget.contains("VALUE "), mget);
            JsonNode stats = new ObjectMapper().readTree(bdb.get("/stats").body());
            assertEquals("bdb", stats.get("store").asText());
            assertTrue(stats.get("entries").asLong() >= 1 && stats.get("entries").asLong() <= 5);
            assertTrue(stats.get("je").get("cache").get("cacheTotalBytes").asLong() > 0);
        }
    }
}
