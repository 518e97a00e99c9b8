package dev.jload.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jload.kv.config.KvConfig;
import dev.jload.kv.http.HttpServer;
import dev.jload.kv.store.Key;
import dev.jload.kv.store.KvStore;
import dev.jload.kv.store.heap.HeapStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HTTPS with HTTP/1.1 and HTTP/2 chosen by ALPN, h2c with prior knowledge, and the TLS properties' errors, against the
 * service as a separate JVM; and, in-process, that HTTP/2 streams reach a blocking store on its worker threads.
 */
class TlsAndHttp2Test {
    @TempDir
    static Path certDir;
    private static TestCertificate certificate;
    private static ServiceProcess tlsWithHttp2;

    @BeforeAll
    static void start() throws Exception {
        certificate = TestCertificate.create(certDir);
        tlsWithHttp2 = new ServiceProcess(tlsOptions("-Dkv.http2=true"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (tlsWithHttp2 != null) {
            tlsWithHttp2.close();
        }
    }

    private static String[] tlsOptions(String... more) {
        List<String> options = new ArrayList<>(List.of("-Xmx128m", "-Dkv.port=0",
                "-Dkv.tls.cert=" + certificate.cert, "-Dkv.tls.key=" + certificate.key));
        options.addAll(List.of(more));
        return options.toArray(String[]::new);
    }

    private static HttpClient httpsClient(HttpClient.Version version) throws Exception {
        return HttpClient.newBuilder().version(version).sslContext(certificate.trustingClient())
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static HttpRequest request(String scheme, int port, String method, String path, String body) {
        return HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body))
                .build();
    }

    /** PUT then GET of one key; asserts statuses, bodies and that both went over {@code expected}. */
    private static void putThenGet(HttpClient client, String scheme, int port, String key, String value,
                                   HttpClient.Version expected) throws Exception {
        HttpResponse<String> put = client.send(request(scheme, port, "PUT", "/kv/" + key, value),
                BodyHandlers.ofString());
        assertEquals(200, put.statusCode(), put.body());
        assertEquals("stored key " + key + " (" + value.length() + " bytes)\n", put.body());
        assertEquals(expected, put.version());
        HttpResponse<String> get = client.send(request(scheme, port, "GET", "/kv/" + key, null),
                BodyHandlers.ofString());
        assertEquals(200, get.statusCode(), get.body());
        assertEquals(value, get.body());
        assertEquals(expected, get.version());
        assertFalse(get.headers().map().containsKey("connection"), "connection-specific header: " + get.headers());
    }

    @Test
    void httpsServesHttp11ToAnHttp11Client() throws Exception {
        assertTrue(tlsWithHttp2.startLine().contains(" tls=on http2=on "), tlsWithHttp2.startLine());
        putThenGet(httpsClient(HttpClient.Version.HTTP_1_1), "https", tlsWithHttp2.port(), "over-http1", "value one",
                HttpClient.Version.HTTP_1_1);
    }

    @Test
    void httpsServesHttp2WhenAlpnChoosesH2() throws Exception {
        HttpClient client = httpsClient(HttpClient.Version.HTTP_2);
        int port = tlsWithHttp2.port();
        putThenGet(client, "https", port, "over-h2", "value two", HttpClient.Version.HTTP_2);
        HttpResponse<String> miss = client.send(request("https", port, "GET", "/kv/absent", null),
                BodyHandlers.ofString());
        assertEquals(404, miss.statusCode());
        assertEquals("miss: key absent is not stored\n", miss.body());
        List<CompletableFuture<HttpResponse<String>>> concurrent = IntStream.range(0, 20)
                .mapToObj(i -> client.sendAsync(request("https", port, "GET", "/kv/over-h2", null),
                        BodyHandlers.ofString()))
                .toList();
        for (CompletableFuture<HttpResponse<String>> response : concurrent) {
            assertEquals("value two", response.get().body());
            assertEquals(HttpClient.Version.HTTP_2, response.get().version());
        }
    }

    @Test
    void httpsWithoutHttp2AnswersAnHttp2ClientInHttp11() throws Exception {
        try (ServiceProcess service = new ServiceProcess(tlsOptions())) {
            assertTrue(service.startLine().contains(" tls=on http2=off "), service.startLine());
            putThenGet(httpsClient(HttpClient.Version.HTTP_2), "https", service.port(), "k", "v",
                    HttpClient.Version.HTTP_1_1);
        }
    }

    @Test
    void h2cByPriorKnowledgeOrUpgradeAndHttp11ShareThePort() throws Exception {
        try (ServiceProcess service = new ServiceProcess("-Xmx128m", "-Dkv.port=0", "-Dkv.http2=true")) {
            int port = service.port();
            assertTrue(service.startLine().contains(" tls=off http2=on "), service.startLine());
            PriorKnowledgeRequest.Response put = PriorKnowledgeRequest.send(port, "PUT", "/kv/h2c",
                    "cleartext".getBytes(StandardCharsets.UTF_8));
            assertTrue(put.statusIs200(), "HEADERS with :status 200 expected: " + put);
            assertEquals("stored key h2c (9 bytes)\n", put.text());
            PriorKnowledgeRequest.Response get = PriorKnowledgeRequest.send(port, "GET", "/kv/h2c", null);
            assertTrue(get.statusIs200(), "HEADERS with :status 200 expected: " + get);
            assertEquals("cleartext", get.text());
            HttpClient http1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            putThenGet(http1, "http", port, "plain", "still HTTP/1.1", HttpClient.Version.HTTP_1_1);
            // java.net.http asks for HTTP/2 on http:// by an Upgrade: h2c request
            HttpClient upgrading = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
            HttpResponse<String> upgraded = upgrading.send(request("http", port, "GET", "/kv/h2c", null),
                    BodyHandlers.ofString());
            assertEquals("cleartext", upgraded.body());
            assertEquals(HttpClient.Version.HTTP_2, upgraded.version());
            putThenGet(upgrading, "http", port, "upgraded", "h2c after the upgrade", HttpClient.Version.HTTP_2);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-Dkv.tls.cert=CERT|kv-service: kv.tls.key is missing: kv.tls.cert is set",
        "-Dkv.tls.key=KEY -Dkv.http2=true|kv-service: kv.tls.cert is missing: kv.tls.key is set",
        "-Dkv.tls.cert=CERT -Dkv.tls.key=DIR/none.pem|kv-service: kv.tls.key=DIR/none.pem is not a readable file",
        "-Dkv.tls.cert=KEY -Dkv.tls.key=CERT|kv-service: kv.tls.cert=KEY and kv.tls.key=CERT do not load as a PEM"
                + " certificate chain and its PEM PKCS#8 private key: ",
    })
    void badTlsPropertiesExitWithCode2AndOneLine(String options, String message) throws Exception {
        String[] jvmOptions = (options + " -Dkv.port=0").replace("CERT", certificate.cert.toString())
                .replace("KEY", certificate.key.toString()).replace("DIR", certDir.toString()).split(" ");
        String expected = message.replace("CERT", certificate.cert.toString())
                .replace("KEY", certificate.key.toString()).replace("DIR", certDir.toString());
        try (ServiceProcess service = new ServiceProcess(jvmOptions)) {
            assertEquals(2, service.exitCode());
            String stderr = service.stderr();
            assertTrue(stderr.startsWith(expected), stderr);
            assertEquals(1, stderr.lines().count(), "one line: " + stderr);
        }
    }

    @Test
    void http2StreamsReachABlockingStoreOnItsWorkerThreads() throws Exception {
        Properties properties = new Properties();
        properties.setProperty("kv.port", "0");
        properties.setProperty("kv.http2", "true");
        properties.setProperty("kv.threads", "2");
        properties.setProperty("kv.maxMemory", "16m");
        KvConfig config = KvConfig.from(properties, Runtime.getRuntime().maxMemory(), 2);
        ThreadRecordingStore store = new ThreadRecordingStore(new HeapStore(config.heap(), 0));
        HttpServer server = new HttpServer(config, store, null);
        try {
            int port = server.start();
            byte[] value = "on a worker".getBytes(StandardCharsets.UTF_8);
            assertTrue(PriorKnowledgeRequest.send(port, "PUT", "/kv/w", value).statusIs200());
            assertEquals("on a worker", PriorKnowledgeRequest.send(port, "GET", "/kv/w", null).text());
        } finally {
            server.close();
            store.close();
        }
        assertEquals(2, store.threads.size(), "one put, one get: " + store.threads);
        for (String thread : store.threads) {
            assertTrue(thread.startsWith("kv-store-"), "store called on " + thread + ", not a store worker");
        }
    }

    /** A heap store that says it blocks, as bdb does, and notes the thread of every call. */
    private static final class ThreadRecordingStore implements KvStore {
        final Queue<String> threads = new ConcurrentLinkedQueue<>();
        private final KvStore store;

        ThreadRecordingStore(KvStore store) {
            this.store = store;
        }

        private void note() {
            threads.add(Thread.currentThread().getName());
        }

        @Override
        public byte[] get(Key key) {
            note();
            return store.get(key);
        }

        @Override
        public void put(Key key, byte[] src, int offset, int length) {
            note();
            store.put(key, src, offset, length);
        }

        @Override
        public boolean delete(Key key) {
            note();
            return store.delete(key);
        }

        @Override
        public void writeStats(ObjectNode node) {
            store.writeStats(node);
        }

        @Override
        public boolean blocking() {
            return true;
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
