import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Test target for jload's JFR reader: for a while it contends a monitor, parks, allocates, computes, and does a
 * little socket and file I/O, each on its own threads, so a recording of it holds every event kind the reader types.
 *
 * <p>Run: {@code java -XX:StartFlightRecording:... JfrWorkload [SECONDS] [SCRATCH_DIR]} (default 2 s, the temp
 * folder). It exits when done; the recording is dumped on exit.
 */
public class JfrWorkload {
    /** The monitor the contending threads fight over; its class names the monitor in jdk.JavaMonitorEnter. */
    static final class ContendedLock {}

    /** The blocker the parking thread parks on; its class names it in jdk.ThreadPark. */
    static final class ParkBlocker {}

    static final ContendedLock LOCK = new ContendedLock();
    static volatile Object sink;
    static volatile long checksum;

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 2;
        Path scratch = args.length > 1 ? Path.of(args[1]) : Path.of(System.getProperty("java.io.tmpdir"));
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            threads.add(new Thread(() -> contend(end), "contender-" + i));
        }
        threads.add(new Thread(() -> park(end), "parker"));
        threads.add(new Thread(() -> allocate(end), "allocator"));
        threads.add(new Thread(() -> compute(end), "computer"));
        threads.add(new Thread(() -> sockets(end), "socket-client"));
        threads.add(new Thread(() -> files(end, scratch), "file-writer"));
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        System.gc();
    }

    /** Takes the shared monitor and holds it 15 ms, so the others wait longer than the profile's 10 ms threshold. */
    static void contend(long end) {
        while (System.nanoTime() < end) {
            synchronized (LOCK) {
                sleep(15);
            }
        }
    }

    static void park(long end) {
        ParkBlocker blocker = new ParkBlocker();
        while (System.nanoTime() < end) {
            LockSupport.parkNanos(blocker, 20_000_000L);
        }
    }

    static void allocate(long end) {
        List<byte[]> ring = new ArrayList<>();
        int i = 0;
        while (System.nanoTime() < end) {
            byte[] chunk = new byte[16 * 1024 + (i++ % 7) * 1024];
            if (ring.size() < 256) {
                ring.add(chunk);
            } else {
                ring.set(i % 256, chunk);
            }
            sink = new StringBuilder().append("allocation ").append(i).toString();
        }
    }

    static void compute(long end) {
        long sum = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100_000; i++) {
                sum += Long.numberOfTrailingZeros(i * 31L + sum);
            }
            checksum = sum;
        }
    }

    /** A loopback server that answers each 4 KB request 15 ms late, so the client's reads are slow. */
    static void sockets(long end) {
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> answer(server), "socket-server");
            answering.setDaemon(true);
            answering.start();
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                byte[] request = new byte[4096];
                byte[] reply = new byte[4096];
                while (System.nanoTime() < end) {
                    out.write(request);
                    out.flush();
                    readFully(in, reply);
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    static void answer(ServerSocket server) {
        try (Socket socket = server.accept()) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            byte[] buffer = new byte[4096];
            while (true) {
                readFully(in, buffer);
                sleep(15);
                out.write(buffer);
                out.flush();
            }
        } catch (IOException e) {
            // The client closed the connection.
        }
    }

    static void readFully(InputStream in, byte[] buffer) throws IOException {
        int read = 0;
        while (read < buffer.length) {
            int n = in.read(buffer, read, buffer.length - read);
            if (n < 0) {
                throw new IOException("closed");
            }
            read += n;
        }
    }

    static void files(long end, Path scratch) {
        try {
            Path file = Files.createTempFile(scratch, "jfr-workload", ".bin");
            byte[] block = new byte[64 * 1024];
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                while (System.nanoTime() < end) {
                    raf.seek(0);
                    for (int i = 0; i < 16; i++) {
                        raf.write(block);
                    }
                    raf.getFD().sync();
                    raf.seek(0);
                    while (raf.read(block) > 0) {}
                    sleep(5);
                }
            }
            Files.delete(file);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
