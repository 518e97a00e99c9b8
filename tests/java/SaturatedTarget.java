import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test target for jload's "is it the GC?" under saturation: a small HTTP service on a loopback port whose requests
 * wait in a queue, while small, frequent GC pauses come and go.
 *
 * <p>One worker thread ({@code --workers}, default 1) serves every request from the HTTP server's queue; each request
 * burns {@code --work-us} of CPU (default 1000) and allocates {@code --garbage-kb} of short-lived arrays (default 64);
 * with {@code --sleep-us} it then sleeps that long besides (default 0): a service time that takes no CPU, which a
 * shared machine's other work does not stretch.
 * Driven by more connections than the worker keeps up with, each request waits for the ones queued before it: its
 * latency is many service times, and that queue is what makes the tail. With a small young generation (for example
 * {@code -Xmn8m -XX:+UseSerialGC}) the garbage brings several young collections a second, each well under a
 * millisecond to a few: every slow request overlaps one, but they are a small share of its wait.
 *
 * <p>With {@code --hang-every N} (default 0: never), every Nth request to {@code /} is never answered: its exchange is
 * left open, so a client whose timeout outlasts the run still waits for it when the run ends.
 *
 * <p>Run with the source launcher: {@code java -Xmn8m -XX:+UseSerialGC SaturatedTarget.java --port N}. It serves
 * {@code /} and {@code /health}, prints {@code port=N} once it is ready, and exits by itself after {@code
 * --exit-after-ms} (default and limit: ten minutes).
 */
public final class SaturatedTarget {
    private static final long MAX_LIFETIME_MS = 10 * 60 * 1000;
    private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);

    /** Where allocations and the work's result go so that they cannot be optimised away. */
    static volatile Object sink;

    static volatile long result;

    private SaturatedTarget() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        int port = 0;
        int workers = 1;
        long workMicros = 1000;
        long sleepMicros = 0;
        int garbageKb = 64;
        long hangEvery = 0;
        long exitAfterMs = MAX_LIFETIME_MS;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(value);
                case "--workers" -> workers = Integer.parseInt(value);
                case "--work-us" -> workMicros = Long.parseLong(value);
                case "--sleep-us" -> sleepMicros = Long.parseLong(value);
                case "--garbage-kb" -> garbageKb = Integer.parseInt(value);
                case "--hang-every" -> hangEvery = Long.parseLong(value);
                case "--exit-after-ms" -> exitAfterMs = Math.min(MAX_LIFETIME_MS, Long.parseLong(value));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        // The JDK server writes a response's head and body apart: without TCP_NODELAY, Nagle's algorithm would hold
        // the body until the client's delayed ACK (40 ms on Linux).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        server.createContext("/health", exchange -> answer(exchange));
        long work = workMicros;
        long sleep = sleepMicros;
        int garbage = garbageKb;
        long hang = hangEvery;
        AtomicLong served = new AtomicLong();
        server.createContext("/", exchange -> {
            serve(work, garbage);
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep / 1000, (int) (sleep % 1000) * 1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (hang > 0 && served.incrementAndGet() % hang == 0) {
                return;
            }
            answer(exchange);
        });
        server.setExecutor(Executors.newFixedThreadPool(workers));
        server.start();
        System.out.println("port=" + server.getAddress().getPort());
        System.out.flush();
        Thread.sleep(exitAfterMs);
        System.exit(0);
    }

    /** One request's work: its garbage in 8 KB arrays, then CPU until {@code workMicros} have passed. */
    private static void serve(long workMicros, int garbageKb) {
        long end = System.nanoTime() + workMicros * 1000;
        for (int done = 0; done < garbageKb; done += 8) {
            sink = new byte[8 * 1024];
        }
        long x = result;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        result = x;
    }

    private static void answer(HttpExchange exchange) throws IOException {
        exchange.sendResponseHeaders(200, BODY.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(BODY);
        }
    }
}
