package dev.jload.kv.http;

import dev.jload.kv.config.KvConfig;
import dev.jload.kv.store.KvStore;
import dev.jload.kv.store.bdb.BdbStore;
import dev.jload.kv.store.heap.HeapStore;
import dev.jload.kv.store.slab.SlabStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Properties;

/** The real Netty server and store on a free 127.0.0.1 port, with a java.net.http client aimed at it. */
final class TestServer implements AutoCloseable {
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final KvStore store;
    private final HttpServer server;
    final int port;

    /** {@code kv.*} settings as name, value pairs; kv.port is always 0 (any free port). */
    TestServer(String... settings) throws InterruptedException {
        Properties properties = new Properties();
        for (int i = 0; i < settings.length; i += 2) {
            properties.setProperty(settings[i], settings[i + 1]);
        }
        properties.setProperty("kv.port", "0");
        KvConfig config = KvConfig.from(properties, Runtime.getRuntime().maxMemory(), 2);
        this.store = switch (config.store()) {
            case HEAP -> new HeapStore(config.heap(), config.ttlMillis());
            case OFFHEAP -> new SlabStore(config.slab(), config.ttlMillis());
            case BDB -> new BdbStore(config.bdb());
        };
        this.server = new HttpServer(config, store, ServerTls.context(config));
        this.port = server.start();
    }

    HttpResponse<byte[]> send(String method, String pathAndQuery, byte[] body) throws IOException,
            InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(body))
                .build();
        return client.send(request, BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> get(String pathAndQuery) throws IOException, InterruptedException {
        return send("GET", pathAndQuery, null);
    }

    @Override
    public void close() {
        server.close();
        store.close();
    }
}
