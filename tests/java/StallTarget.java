import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Test target for jload's "is it the GC?" attribution: a small HTTP service on a loopback port whose requests are
 * held up in a known way, chosen by its mode:
 *
 * <ul>
 *   <li>{@code gc}: a large live set of small linked objects ({@code --live-mb}, default 200) and a
 *       {@code System.gc()} every {@code --period-ms} (default 2000): with Serial or Parallel, a stop-the-world full
 *       collection whose length is set by the live set. Requests are cheap and allocate little, so young
 *       collections stay rare.
 *   <li>{@code lock}: the same shape of stall without GC: every request takes one global lock, and a thread takes it
 *       every {@code --period-ms} and sleeps {@code --stall-ms} (default 100) holding it. Nothing is retained and
 *       nothing calls {@code System.gc()}.
 *   <li>{@code zgc-stall}: for ZGC in a heap too small for the allocation rate: a live set of {@code --live-mb}
 *       (default 0) and {@code --allocators} background threads (default 1) that, every {@code --period-ms}, allocate
 *       short-lived 32 KB arrays for {@code --burst-ms} (default 300) at {@code --burst-mb-s} MB/s each (default 0: as
 *       fast as they can; a rate leaves the CPU to the requests on a small machine): the collector falls behind
 *       and threads stall in those bursts, not between them. Each request allocates {@code --request-kb} (default
 *       64) as well, so requests that come during a burst wait in the collector's allocation stalls.
 * </ul>
 *
 * <p>Compile with javac and run, for example {@code java -Xmx512m -XX:+UseSerialGC
 * -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags -cp DIR StallTarget --mode gc}. It serves {@code /} and
 * {@code /health} on {@code --port} (default 0: any free port), prints {@code port=N} once it is ready, and exits by
 * itself after {@code --exit-after-ms} (default and limit: ten minutes).
 */
public final class StallTarget {
    private static final long MAX_LIFETIME_MS = 10 * 60 * 1000;
    private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);

    /** The lock every request takes in mode {@code lock}. */
    private static final ReentrantLock GLOBAL = new ReentrantLock();

    /** The live set: the head of a linked list of small nodes, kept reachable for the whole run. */
    static volatile Node liveSet;

    /** Where allocations go so that they cannot be optimised away. */
    static volatile Object sink;

    /** One small object of the live set: a link and a 48-byte payload (about 80 bytes with headers). */
    static final class Node {
        final Node next;
        final long[] payload = new long[4];

        Node(Node next) {
            this.next = next;
        }
    }

    private StallTarget() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        Options options = Options.parse(args);
        // The JDK server writes the head and the body of a response apart: without TCP_NODELAY, Nagle's algorithm
        // holds the body back until the client's delayed ACK, 40 ms on Linux, and every request would take 40 ms.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        liveSet = buildLiveSet(options.liveMb);
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), options.port), 1024);
        server.createContext("/health", exchange -> {
            exchange.sendResponseHeaders(200, BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(BODY);
            }
        });
        server.createContext("/", exchange -> {
            serve(options);
            exchange.sendResponseHeaders(200, BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(BODY);
            }
        });
        server.setExecutor(Executors.newFixedThreadPool(options.threads));
        server.start();
        startDisturbance(options);
        System.out.println("port=" + server.getAddress().getPort());
        System.out.flush();
        Thread.sleep(options.exitAfterMs);
        System.exit(0);
    }

    /** What a request does besides answering: nothing, wait for the global lock, or allocate. */
    private static void serve(Options options) {
        switch (options.mode) {
            case "lock" -> {
                GLOBAL.lock();
                GLOBAL.unlock();
            }
            case "zgc-stall" -> {
                for (int done = 0; done < options.requestKb; done += 32) {
                    sink = new byte[32 * 1024];
                }
            }
            default -> {}
        }
    }

    /** Starts the daemon thread(s) that hold requests up in the chosen mode. */
    private static void startDisturbance(Options options) {
        switch (options.mode) {
            case "gc" -> daemon("periodic-gc", () -> every(options.periodMs, System::gc));
            case "lock" -> daemon("lock-holder", () -> every(options.periodMs, () -> holdLock(options.stallMs)));
            case "zgc-stall" -> {
                for (int i = 0; i < options.allocators; i++) {
                    Runnable burst = () -> allocateFor(options.burstMs, options.burstMbPerS);
                    daemon("allocator-" + i, () -> every(options.periodMs, burst));
                }
            }
            default -> throw new IllegalArgumentException(options.mode);
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code action} every {@code periodMs}, on a fixed schedule (a late run does not shift the next ones). */
    private static void every(long periodMs, Runnable action) {
        long next = System.nanoTime();
        while (true) {
            next += periodMs * 1_000_000L;
            long waitNanos = next - System.nanoTime();
            if (waitNanos > 0) {
                sleepNanos(waitNanos);
            }
            action.run();
        }
    }

    private static void holdLock(long stallMs) {
        GLOBAL.lock();
        try {
            sleepNanos(stallMs * 1_000_000L);
        } finally {
            GLOBAL.unlock();
        }
    }

    /** Allocates short-lived 32 KB arrays for {@code burstMs} at {@code mbPerSecond} (0: as fast as it can). */
    private static void allocateFor(long burstMs, long mbPerSecond) {
        long start = System.nanoTime();
        long end = start + burstMs * 1_000_000L;
        long allocated = 0;
        for (long now = start; now < end; now = System.nanoTime()) {
            long due = mbPerSecond <= 0 ? Long.MAX_VALUE : (now - start) * mbPerSecond * 1024 * 1024 / 1_000_000_000L;
            if (allocated >= due) {
                sleepNanos(200_000);
                continue;
            }
            for (int i = 0; i < 64; i++) {
                sink = new byte[32 * 1024];
            }
            allocated += 64 * 32 * 1024;
        }
    }

    private static void sleepNanos(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A linked list of about {@code megabytes} MB of small nodes. */
    private static Node buildLiveSet(int megabytes) {
        long nodes = megabytes * 1024L * 1024L / 80;
        Node head = null;
        for (long i = 0; i < nodes; i++) {
            head = new Node(head);
        }
        return head;
    }

    /** The command line, with its defaults. */
    private record Options(
            String mode,
            int port,
            int liveMb,
            long periodMs,
            long stallMs,
            long burstMs,
            long burstMbPerS,
            int allocators,
            int requestKb,
            int threads,
            long exitAfterMs) {

        static Options parse(String[] args) {
            String mode = null;
            int port = 0;
            Integer liveMb = null;
            long periodMs = 2000;
            long stallMs = 100;
            long burstMs = 300;
            long burstMbPerS = 0;
            int allocators = 1;
            int requestKb = 64;
            int threads = 8;
            long exitAfterMs = MAX_LIFETIME_MS;
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                if (value == null) {
                    usage("missing value after " + args[i]);
                }
                switch (args[i++]) {
                    case "--mode" -> mode = value;
                    case "--port" -> port = Integer.parseInt(value);
                    case "--live-mb" -> liveMb = Integer.parseInt(value);
                    case "--period-ms" -> periodMs = Long.parseLong(value);
                    case "--stall-ms" -> stallMs = Long.parseLong(value);
                    case "--burst-ms" -> burstMs = Long.parseLong(value);
                    case "--burst-mb-s" -> burstMbPerS = Long.parseLong(value);
                    case "--allocators" -> allocators = Integer.parseInt(value);
                    case "--request-kb" -> requestKb = Integer.parseInt(value);
                    case "--threads" -> threads = Integer.parseInt(value);
                    case "--exit-after-ms" -> exitAfterMs = Math.min(Long.parseLong(value), MAX_LIFETIME_MS);
                    default -> usage("unknown option " + args[i - 1]);
                }
            }
            if (mode == null || !(mode.equals("gc") || mode.equals("lock") || mode.equals("zgc-stall"))) {
                usage("--mode must be gc, lock or zgc-stall");
            }
            int live = liveMb != null ? liveMb : mode.equals("gc") ? 200 : 0;
            return new Options(
                    mode, port, live, periodMs, stallMs, burstMs, burstMbPerS, allocators, requestKb, threads,
                    exitAfterMs);
        }

        private static void usage(String problem) {
            System.err.println("StallTarget: " + problem + "; usage: java StallTarget --mode gc|lock|zgc-stall"
                    + " [--port N] [--live-mb N] [--period-ms N] [--stall-ms N] [--burst-ms N] [--burst-mb-s N]"
                    + " [--allocators N] [--request-kb N] [--threads N] [--exit-after-ms N]");
            System.exit(2);
        }
    }
}
