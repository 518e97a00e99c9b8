import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * Test target for jload's crash detection: a small HTTP service on a loopback port that writes, as it starts, the
 * kind of lines real services log that merely mention OutOfMemoryError or a crash file (stock Tomcat logs every JVM
 * argument, {@code -XX:+ExitOnOutOfMemoryError} included), and then serves {@code /health} and {@code /}.
 *
 * <p>Run with the source launcher: {@code java [-Dmisleading.oomThread=true] Misleading.java --port N}. With
 * {@code -Dmisleading.oomThread=true} a worker thread really runs out of heap (it allocates more than -Xmx) and dies
 * with the JVM's uncaught-exception stack, while the service keeps answering. It exits by itself after ten minutes
 * at the latest.
 */
public class Misleading {
    private static final long MAX_LIFETIME_MS = 10 * 60 * 1000;

    /** Keeps the worker's allocations reachable, so the heap really fills. */
    static volatile List<long[]> hoard = new ArrayList<>();

    public static void main(String[] args) throws IOException, InterruptedException {
        int port = 0;
        boolean oomThread = Boolean.getBoolean("misleading.oomThread");
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: java [-Dmisleading.oomThread=true] Misleading.java --port N");
                System.exit(2);
            }
        }
        printMisleadingLines();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 100);
        server.createContext("/", exchange -> {
            byte[] body = ("hello " + System.nanoTime() + "\n").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
        if (oomThread) {
            Thread worker = new Thread(Misleading::exhaustHeap, "hoarder");
            worker.start();
            worker.join();
            hoard = new ArrayList<>();
            System.gc();
        }
        Thread.sleep(MAX_LIFETIME_MS);
        server.stop(0);
    }

    private static void printMisleadingLines() {
        String[] lines = {
            "23-Nov-2026 13:50:00.123 INFO [main] org.apache.catalina.startup.VersionLoggerListener.log"
                + " Command line argument: -XX:+ExitOnOutOfMemoryError",
            "23-Nov-2026 13:50:00.124 INFO [main] org.apache.catalina.startup.VersionLoggerListener.log"
                + " Command line argument: -XX:+HeapDumpOnOutOfMemoryError",
            "cache: would rather evict than see java.lang.OutOfMemoryError: Java heap space",
            "java.lang.OutOfMemoryError: a message that names the class, with no stack after it",
            "crash files go to hs_err_pid%p.log (-XX:ErrorFile)",
            "Exception in thread \"main\" is how the JVM reports uncaught exceptions; none happened",
        };
        for (String line : lines) {
            System.out.println(line);
            System.err.println(line);
        }
        System.out.flush();
        System.err.flush();
    }

    /** Allocates until the heap is exhausted; the OutOfMemoryError is left uncaught, so the thread dies of it. */
    private static void exhaustHeap() {
        while (true) {
            hoard.add(new long[1 << 20]);
        }
    }
}
