package dev.jload.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The service as a separate JVM: start line, exit codes, SIGTERM, and bdb data across a restart. */
class KvServiceProcessTest {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> send(int port, String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body))
                .build();
        return client.send(request, BodyHandlers.ofString());
    }

    @Test
    void printsOneStartLineServesAndStopsOnSigterm() throws Exception {
        try (ServiceProcess service = new ServiceProcess("-Xmx128m", "-XX:+UseG1GC", "-Dkv.port=0")) {
            int port = service.port();
            String line = service.startLine();
            for (String expected : new String[] {"store=heap", "bind=127.0.0.1", "maxMemory=64m",
                    "maxMemorySource=\"50% of heap\"", "maxSize=-1", "maxValueSize=1m", "heapMax=128m",
                    "gc=\"G1 Young Generation,", "java=", "pid="}) {
                assertTrue(line.contains(expected), expected + " in " + line);
            }
            assertEquals(200, send(port, "GET", "/health", null).statusCode());
            assertEquals(200, send(port, "GET", "/random_set?keyRange=10&valueSize=10", null).statusCode());
            long millis = service.terminate();
            assertTrue(millis < 5000, "SIGTERM took " + millis + " ms");
            assertEquals(143, service.exitValue(), "the JVM's exit code for SIGTERM");
            assertTrue(service.stderr().contains("kv-service: stopped"), service.stderr());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-Dkv.store=redis|kv-service: kv.store=redis is not a store: expected heap, offheap or bdb",
        "-Dkv.maxMemory=lots|kv-service: kv.maxMemory=lots is not a size: expected bytes like 1048576, 512k, 800m or 1g",
        "-Dkv.offheap.capacity=1g -Dkv.store=offheap -XX:MaxDirectMemorySize=128m|kv-service: kv.offheap.capacity=1g"
                + " does not fit the JVM's direct memory limit of 128m (-XX:MaxDirectMemorySize, default -Xmx) with 64m"
                + " left for network buffers: set -XX:MaxDirectMemorySize=1088m or more, or lower kv.offheap.capacity",
        "-Dkv.store=bdb -Dje.noSuchThing=1|kv-service: a je.* property was rejected by Berkeley DB JE:",
    })
    void invalidPropertyExitsWithCode2AndOneLine(String options, String message, @TempDir Path dir) throws Exception {
        String[] jvmOptions = (options + " -Dkv.port=0 -Dkv.dir=" + dir).split(" ");
        try (ServiceProcess service = new ServiceProcess(jvmOptions)) {
            assertEquals(2, service.exitCode());
            String stderr = service.stderr();
            assertTrue(stderr.startsWith(message), stderr);
            assertEquals(1, stderr.lines().count(), "one line: " + stderr);
            assertEquals("", service.startLine());
        }
    }

    @Test
    void bdbDataSurvivesARestartAndTheDirectoryIsLocked(@TempDir Path dir) throws Exception {
        String[] options = {"-Xmx256m", "-Dkv.store=bdb", "-Dkv.port=0", "-Dkv.shards=2", "-Dkv.dir=" + dir};
        try (ServiceProcess first = new ServiceProcess(options)) {
            int port = first.port();
            assertTrue(first.startLine().contains("je=\"{je.maxMemoryPercent=25}\""), first.startLine());
            assertEquals(200, send(port, "PUT", "/kv/persist", "still here").statusCode());
            try (ServiceProcess second = new ServiceProcess(options)) {
                assertEquals(1, second.exitCode());
                assertTrue(second.stderr().contains("is in use by another process"), second.stderr());
            }
            first.terminate();
        }
        try (ServiceProcess restarted = new ServiceProcess(options)) {
            HttpResponse<String> response = send(restarted.port(), "GET", "/kv/persist", null);
            assertEquals(200, response.statusCode());
            assertEquals("still here", response.body());
            restarted.terminate();
        }
    }

    @Test
    void heapStoreAsLargeAsTheHeapHaltsWithCode3InsteadOfHanging() throws Exception {
        try (ServiceProcess service = new ServiceProcess("-Xmx48m", "-Dkv.port=0", "-Dkv.maxMemory=100%")) {
            int port = service.port();
            String value = "v".repeat(512 << 10);
            ExecutorService writers = Executors.newFixedThreadPool(8);
            long deadline = System.currentTimeMillis() + 20_000;
            for (int w = 0; w < 8; w++) {
                int writer = w;
                writers.submit(() -> {
                    for (int key = 0; System.currentTimeMillis() < deadline; key++) {
                        send(port, "PUT", "/kv/" + writer + "-" + key, value);
                    }
                    return null;
                });
            }
            int exit = service.exitCode();
            writers.shutdownNow();
            assertEquals(3, exit, service.stderr());
            assertTrue(service.stderr().contains("halting"), service.stderr());
        }
    }

    @Test
    void takenPortExitsWithCode1() throws Exception {
        try (ServiceProcess first = new ServiceProcess("-Dkv.port=0")) {
            int port = first.port();
            try (ServiceProcess second = new ServiceProcess("-Dkv.port=" + port)) {
                assertEquals(1, second.exitCode());
                assertTrue(second.stderr().startsWith("kv-service: cannot listen on 127.0.0.1:" + port + ": "),
                        second.stderr());
            }
        }
    }

    @Test
    void argumentsAreRefused() throws Exception {
        try (ServiceProcess service = new ServiceProcess("-Dkv.port=0", KvService.class.getName())) {
            assertEquals(2, service.exitCode());
        }
    }
}
