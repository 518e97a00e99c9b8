import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Test target whose service time is a known function of two system properties, for jload's tune: every request
 * answers 200 {@code ok} after {@code 2 + 400 × ((x − 0.3)² + (y − 0.7)²)} ms, where {@code x} and {@code y} are
 * {@code -Dx} and {@code -Dy} (default 0.5 each). Its best configuration is exactly x = 0.3, y = 0.7 (2 ms); the
 * corners of the unit square cost up to 198 ms. HTTP/1.1 on {@code 127.0.0.1:PORT} by the JDK's own server
 * ({@code com.sun.net.httpserver}): its one dispatcher thread reads each request and schedules the answer, which a
 * timer thread sends once the service time is up, so that a waiting request holds up no other and each request costs
 * no more thread wake-ups than a thread per connection would (on a loaded machine each wake-up can cost milliseconds).
 *
 * <p>With {@code -Dworker.mb=M}, a fixed pool of {@code -Dworkers=N} threads (default 8) serves the requests instead,
 * each busy for the service time, and the server holds M MiB per worker, written at start: its capacity is
 * N × 1000 / service ms req/s and its memory grows by M MiB per worker — a known trade of memory for capacity, for the
 * memory objective's frontier.
 *
 * <p>With {@code -Dcrash.above=C}, a server whose {@code x} is above C dies of an {@code OutOfMemoryError} before it
 * listens: a region of the space where the target crashes, which a tune must learn to avoid.
 *
 * <p>Run as {@code java -Dx=0.3 -Dy=0.7 -cp DIR Bowl PORT}. Prints {@code serving port=PORT service=MS ms} once it
 * listens.
 */
public class Bowl {
    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);
    private static final ScheduledExecutorService ANSWERS = Executors.newSingleThreadScheduledExecutor();
    /** The memory the workers hold ({@code -Dworker.mb}), kept for the server's life. */
    static byte[][] held;

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java -Dx=X -Dy=Y Bowl.java PORT");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        double x = Double.parseDouble(System.getProperty("x", "0.5"));
        double y = Double.parseDouble(System.getProperty("y", "0.5"));
        String crashAbove = System.getProperty("crash.above");
        if (crashAbove != null && x > Double.parseDouble(crashAbove)) {
            // 16 GiB at once, more than any heap the tests give it: the JVM dies of an OutOfMemoryError.
            long[] tooLarge = new long[Integer.MAX_VALUE - 8];
            System.out.println(tooLarge.length);
        }
        double serviceMs = 2 + 400 * ((x - 0.3) * (x - 0.3) + (y - 0.7) * (y - 0.7));
        long serviceNanos = (long) (serviceMs * 1_000_000);
        ExecutorService workers = workers();
        // Headers and body leave in two writes: without TCP_NODELAY, Nagle's algorithm holds the body until the
        // client's delayed ACK (40 ms).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (workers == null) {
                ANSWERS.schedule(() -> answer(exchange), serviceNanos, TimeUnit.NANOSECONDS);
            } else {
                workers.execute(() -> {
                    try {
                        Thread.sleep(serviceNanos / 1_000_000, (int) (serviceNanos % 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    answer(exchange);
                });
            }
        });
        server.start();
        System.out.println("serving port=" + port + " service=" + serviceMs + " ms");
        System.out.flush();
    }

    /** The pool of {@code -Dworkers} threads holding {@code -Dworker.mb} MiB each; null without {@code worker.mb}. */
    private static ExecutorService workers() {
        String workerMb = System.getProperty("worker.mb");
        if (workerMb == null) {
            return null;
        }
        int count = Integer.parseInt(System.getProperty("workers", "8"));
        held = new byte[count][];
        for (int worker = 0; worker < count; worker++) {
            held[worker] = new byte[Integer.parseInt(workerMb) << 20];
            Arrays.fill(held[worker], (byte) 1);
        }
        // Settled in the old generation now, so that no young collection under load copies them.
        System.gc();
        return Executors.newFixedThreadPool(count);
    }

    /** Answers 200 {@code ok}, the connection kept alive. */
    private static void answer(HttpExchange exchange) {
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, OK.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(OK);
            }
        } catch (IOException e) {
            // The client closed the connection.
        }
    }
}
