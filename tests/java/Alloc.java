import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Test target for jload's JVM sampler: allocates garbage (so young, old and full collection counters move),
 * optionally listens on a loopback port, then idles so its GC counters stay still while they are compared
 * with jstat's.
 *
 * <p>Run with the source launcher: {@code java tests/java/Alloc.java [--listen] [--exit-after-ms N]}.
 * When idle it prints one line, {@code idle port=N} (N is 0 without {@code --listen}), and flushes it.
 * It exits by itself after {@code --exit-after-ms} milliseconds, or after ten minutes at the latest.
 */
public class Alloc {
    private static final long MAX_LIFETIME_MS = 10 * 60 * 1000;
    private static final int CHUNK_BYTES = 64 * 1024;
    private static final int CHUNKS = 2048;
    private static final int RETAINED_CHUNKS = 64;

    /** Kept reachable so the allocated chunks cannot be optimised away and some of them get promoted. */
    static volatile List<byte[]> retained = new ArrayList<>();

    public static void main(String[] args) throws IOException, InterruptedException {
        boolean listen = false;
        long exitAfterMs = MAX_LIFETIME_MS;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--listen")) {
                listen = true;
            } else if (args[i].equals("--exit-after-ms") && i + 1 < args.length) {
                exitAfterMs = Math.min(Long.parseLong(args[++i]), MAX_LIFETIME_MS);
            } else {
                System.err.println("usage: java Alloc.java [--listen] [--exit-after-ms N]");
                System.exit(2);
            }
        }
        allocate();
        System.gc();
        try (ServerSocket server = listen ? new ServerSocket(0, 50, InetAddress.getLoopbackAddress()) : null) {
            System.out.println("idle port=" + (server == null ? 0 : server.getLocalPort()));
            System.out.flush();
            Thread.sleep(exitAfterMs);
        }
    }

    /** Allocates CHUNKS chunks, keeping the last RETAINED_CHUNKS alive in a ring so some survive young GCs. */
    private static void allocate() {
        List<byte[]> ring = new ArrayList<>(RETAINED_CHUNKS);
        for (int i = 0; i < CHUNKS; i++) {
            byte[] chunk = new byte[CHUNK_BYTES];
            chunk[i % CHUNK_BYTES] = (byte) i;
            if (ring.size() < RETAINED_CHUNKS) {
                ring.add(chunk);
            } else {
                ring.set(i % RETAINED_CHUNKS, chunk);
            }
        }
        retained = ring;
    }
}
