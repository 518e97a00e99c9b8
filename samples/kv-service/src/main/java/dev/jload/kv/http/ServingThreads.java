package dev.jload.kv.http;

import dev.jload.kv.Fatal;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for the Netty event loops and store workers. Netty ends an event loop whose run method throws an Error (out
 * of heap, typically) after logging it; once all loops are gone the JVM would exit with code 0 while looking like a
 * clean stop. A serving thread that ends while the server is not stopping therefore halts the JVM via {@link Fatal}.
 */
final class ServingThreads implements ThreadFactory {
    private final String prefix;
    private final AtomicInteger count = new AtomicInteger();
    private volatile boolean stopping;

    ServingThreads(String prefix) {
        this.prefix = prefix;
    }

    /** Called before the server shuts its groups down: from then on threads may end. */
    void stopping() {
        stopping = true;
    }

    @Override
    public Thread newThread(Runnable loop) {
        String name = prefix + "-" + count.incrementAndGet();
        // Built now: when the thread ends for lack of heap, concatenating would fail before halt() is reached.
        byte[] obituary = Fatal.line("kv-service: serving thread " + name + " stopped unexpectedly (out of heap?),"
                + " halting");
        return new FastThreadLocalThread(null, () -> {
            try {
                loop.run();
            } finally {
                if (!stopping) {
                    Fatal.halt(obituary);
                }
            }
        }, name);
    }
}
