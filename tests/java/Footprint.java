import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Test target of a known fixed footprint, for jload's smallest-box search: it allocates {@code MIB} MiB of direct
 * memory, writes every page of it (so the kernel charges all of it to the target's cgroup), keeps it, then serves
 * HTTP/1.1 on {@code 127.0.0.1:PORT} by the JDK's own server ({@code com.sun.net.httpserver}): every request answers
 * 200 {@code ok}. Its memory stays the same while it serves.
 *
 * <p>With a third argument {@code MIN_CPUS} it first refuses to start, exit 3, when the JVM sees fewer CPUs than that
 * ({@code Runtime.availableProcessors()}: in a cgroup box, the CPU quota rounded up): a need for CPU that does not
 * depend on how busy the machine is.
 *
 * <p>Run as {@code java -XX:MaxDirectMemorySize=1g Footprint.java PORT MIB [MIN_CPUS]} (or compiled, {@code java -cp
 * DIR Footprint PORT MIB [MIN_CPUS]}). Prints {@code serving port=PORT footprint=MIB MiB} once it listens.
 */
public class Footprint {
    private static final int CHUNK_BYTES = 1 << 20;
    private static final int PAGE_BYTES = 4096;
    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);

    /** Kept reachable so the direct memory is never freed. */
    static final List<ByteBuffer> KEPT = new ArrayList<>();

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: java Footprint.java PORT MIB [MIN_CPUS]");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        int mib = Integer.parseInt(args[1]);
        int minCpus = args.length == 3 ? Integer.parseInt(args[2]) : 1;
        int cpus = Runtime.getRuntime().availableProcessors();
        if (cpus < minCpus) {
            System.err.println("needs " + minCpus + " CPUs, sees " + cpus);
            System.exit(3);
        }
        for (int i = 0; i < mib; i++) {
            ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK_BYTES);
            for (int offset = 0; offset < CHUNK_BYTES; offset += PAGE_BYTES) {
                chunk.put(offset, (byte) 1);
            }
            KEPT.add(chunk);
        }
        // Headers and body leave in two writes: without TCP_NODELAY, Nagle's algorithm holds the body until the
        // client's delayed ACK (40 ms).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.createContext("/", Footprint::answer);
        server.start();
        System.out.println("serving port=" + port + " footprint=" + mib + " MiB");
        System.out.flush();
    }

    /** Answers 200 {@code ok}, the connection kept alive. */
    private static void answer(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, OK.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(OK);
            }
        }
    }
}
