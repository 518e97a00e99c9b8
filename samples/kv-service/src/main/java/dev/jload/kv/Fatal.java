package dev.jload.kv;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * How the service dies when it cannot go on: one line on stderr and {@code halt(3)}, rather than limping on with dead
 * event-loop threads or exiting 0 once they are all gone (what running out of heap does to Netty when kv.maxMemory is
 * close to -Xmx, seed 001's case). Running out of direct memory for one request's buffers is not fatal: that
 * connection is closed and the service goes on.
 */
public final class Fatal {
    /** Exit code of a service that ran out of heap or lost a serving thread. */
    public static final int EXIT_CODE = 3;
    private static final byte[] OUT_OF_HEAP =
            line("kv-service: out of Java heap (is kv.maxMemory too close to -Xmx?), halting");
    /** Raw stderr: writing a ready-made byte array needs no Java heap, unlike System.err's encoder. */
    private static final FileOutputStream STDERR = new FileOutputStream(FileDescriptor.err);

    private Fatal() {
    }

    /** True for a heap OutOfMemoryError ("Java heap space", "GC overhead limit exceeded"), not for direct memory. */
    public static boolean isHeapExhaustion(Throwable error) {
        if (!(error instanceof OutOfMemoryError)) {
            return false;
        }
        String message = error.getMessage();
        return message == null || !message.contains("irect");
    }

    /** Halts if {@code error} is heap exhaustion; returns otherwise. */
    public static void haltIfHeapExhausted(Throwable error) {
        if (isHeapExhaustion(error)) {
            halt(OUT_OF_HEAP);
        }
    }

    /** {@code text} plus a newline, encoded in advance for {@link #halt(byte[])}. */
    public static byte[] line(String text) {
        return (text + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes {@code line} to stderr and halts with {@link #EXIT_CODE}, skipping shutdown hooks. The line is encoded
     * in advance ({@link #line}): with no heap left, building it here could fail before the halt is reached.
     */
    public static void halt(byte[] line) {
        try {
            STDERR.write(line);
        } catch (Throwable ignored) {
            // nothing left to report with
        } finally {
            Runtime.getRuntime().halt(EXIT_CODE);
        }
    }

    /** Installs the handler for errors that escape a thread's run method. */
    public static void installUncaughtHandler() {
        Thread.setDefaultUncaughtExceptionHandler(new Thread.UncaughtExceptionHandler() {
            @Override
            public void uncaughtException(Thread thread, Throwable error) {
                haltIfHeapExhausted(error);
                System.err.println("kv-service: thread " + thread.getName() + " died: " + error);
            }
        });
    }
}
