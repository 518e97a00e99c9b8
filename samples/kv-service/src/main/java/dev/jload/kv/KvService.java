package dev.jload.kv;

import dev.jload.kv.config.ConfigException;
import dev.jload.kv.config.KvConfig;
import dev.jload.kv.config.Sizes;
import dev.jload.kv.http.HttpServer;
import dev.jload.kv.http.ServerTls;
import dev.jload.kv.store.KvStore;
import dev.jload.kv.store.bdb.BdbStore;
import dev.jload.kv.store.heap.HeapStore;
import dev.jload.kv.store.slab.SlabStore;
import io.netty.handler.ssl.SslContext;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.stream.Collectors;

/**
 * Entry point: reads the {@code -Dkv.*} configuration, loads the TLS certificate and key if configured, opens the
 * store, starts the HTTP server, prints the effective configuration on one line, and on SIGTERM (or any JVM exit)
 * stops the server and closes the store.
 *
 * <p>Exit codes: 2 for an invalid property or argument, TLS files that do not load included (one line on stderr
 * naming it), 1 when the service cannot start for another reason (port taken, kv.dir locked), 3 when it ran out of
 * Java heap or lost a serving thread ({@link Fatal}), 143 after SIGTERM.
 */
public final class KvService {
    private KvService() {
    }

    public static void main(String[] args) {
        if (args.length > 0) {
            fail(2, "kv-service takes no arguments (got " + args[0] + "): configure it with -Dkv.* system properties,"
                    + " e.g. java -Dkv.store=offheap -jar kv-service.jar");
        }
        Fatal.installUncaughtHandler();
        KvConfig config = null;
        KvStore store = null;
        SslContext tls = null;
        try {
            config = KvConfig.from(System.getProperties(), Runtime.getRuntime().maxMemory(),
                    Runtime.getRuntime().availableProcessors());
            tls = ServerTls.context(config);
            store = openStore(config);
        } catch (ConfigException e) {
            fail(2, e.getMessage());
        } catch (RuntimeException e) {
            fail(1, "cannot open the store: " + e.getMessage());
        }
        HttpServer server = new HttpServer(config, store, tls);
        KvStore openedStore = store;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            openedStore.close();
            System.err.println("kv-service: stopped");
        }, "kv-shutdown"));
        int port = 0;
        try {
            port = server.start();
        } catch (Exception e) {
            fail(1, "cannot listen on " + config.bind() + ":" + config.port() + ": " + e.getMessage());
        }
        System.out.println(startLine(config, port, server.transport()));
        System.out.flush();
    }

    /** Opens the configured store (direct memory, files and threads are acquired here). */
    static KvStore openStore(KvConfig config) {
        return switch (config.store()) {
            case HEAP -> new HeapStore(config.heap(), config.ttlMillis());
            case OFFHEAP -> new SlabStore(config.slab(), config.ttlMillis());
            case BDB -> new BdbStore(config.bdb());
        };
    }

    /** The one line printed once serving: port, store settings, JVM heap max, collectors, Java version, pid. */
    static String startLine(KvConfig config, int port, String transport) {
        String collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName)
                .collect(Collectors.joining(","));
        return "kv-service ready port=" + port + " " + config.describe()
                + " heapMax=" + Sizes.formatBytes(Runtime.getRuntime().maxMemory())
                + " gc=\"" + collectors + "\""
                + " java=" + Runtime.version()
                + " transport=" + transport
                + " pid=" + ProcessHandle.current().pid();
    }

    private static void fail(int exitCode, String message) {
        System.err.println("kv-service: " + message.lines().findFirst().orElse(""));
        System.exit(exitCode);
    }
}
