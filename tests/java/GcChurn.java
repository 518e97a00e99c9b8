import java.util.ArrayList;
import java.util.List;

/**
 * A tiny, time-bounded allocating program that makes every HotSpot collector write the GC-log events jload's GC-log
 * parser must read: young collections, an old generation that fills up (G1 concurrent cycles with remark and cleanup,
 * then mixed collections; ZGC and Shenandoah cycles), an explicit System.gc() (full collection), and a heap filled so
 * far that young survivors cannot be promoted (Serial / Parallel: a short Pause Young followed by a Pause Full).
 *
 * <p>Run with the source launcher and a small heap, for example
 * {@code java -Xmx64m -XX:+UseSerialGC -Xlog:gc*,safepoint:file=gc.log:time,uptime,level,tags GcChurn.java}.
 * Every phase is bounded by an allocation budget and the whole run by a wall-clock deadline (about 3 s), so it
 * always ends.
 */
public final class GcChurn {
    private static final int MB = 1024 * 1024;
    private static final long DEADLINE_NANOS = System.nanoTime() + 3_000_000_000L;
    private static volatile Object sink;

    /**
     * @param args optional: a factor for the amount of short-lived garbage (default 1.0; concurrent collectors log
     *     many lines per cycle, so their fixtures are captured with a smaller factor to stay small), then how many
     *     milliseconds to stay alive afterwards, idle (default 0, at most 10,000), for tests that need a running JVM
     */
    public static void main(String[] args) throws InterruptedException {
        double garbageFactor = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
        long idleMillis = args.length > 1 ? Math.min(10_000L, Long.parseLong(args[1])) : 0L;
        long maxHeap = Runtime.getRuntime().maxMemory();
        churn((long) (48 * MB * garbageFactor));
        List<byte[]> retained = retain((long) (maxHeap * 0.45));
        dropEveryOther(retained);
        churnSlowly((long) (80 * MB * garbageFactor));
        System.gc();
        retained.clear();
        List<byte[]> crowded = retain((long) (maxHeap * 0.55));
        churn((long) (32 * MB * garbageFactor));
        sink = crowded;
        crowded.clear();
        churn((long) (16 * MB * garbageFactor));
        System.out.println("GcChurn done");
        System.out.flush();
        Thread.sleep(idleMillis);
    }

    /** Allocates and drops {@code budget} bytes in 32 KB arrays: garbage that dies young. */
    private static void churn(long budget) {
        for (long done = 0; done < budget && beforeDeadline(); done += 32 * 1024) {
            sink = new byte[32 * 1024];
        }
    }

    /**
     * Like {@link #churn} in 2 MB steps with a 2 ms rest after each, so that a concurrent cycle (G1 marking, which
     * then finds the half-empty regions and starts mixed collections) can finish while garbage keeps coming.
     */
    private static void churnSlowly(long budget) {
        for (long done = 0; done < budget && beforeDeadline(); done += 2 * MB) {
            churn(2 * MB);
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Keeps 96 KB arrays (not humongous for G1 or Shenandoah regions, not medium for ZGC) until {@code budget} bytes are retained, with some garbage in between. */
    private static List<byte[]> retain(long budget) {
        List<byte[]> kept = new ArrayList<>();
        for (long done = 0; done < budget && beforeDeadline(); done += 96 * 1024) {
            kept.add(new byte[96 * 1024]);
            sink = new byte[64 * 1024];
        }
        return kept;
    }

    /** Frees half of the retained arrays, scattered over the old generation, so that G1 has regions worth mixing. */
    private static void dropEveryOther(List<byte[]> kept) {
        for (int i = 0; i < kept.size(); i += 2) {
            kept.set(i, null);
        }
    }

    private static boolean beforeDeadline() {
        return System.nanoTime() < DEADLINE_NANOS;
    }
}
