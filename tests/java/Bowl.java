import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Test target whose service time is a known function of two system properties, for jload's tune: every request
 * answers 200 {@code ok} after sleeping {@code 2 + 400 × ((x − 0.3)² + (y − 0.7)²)} ms, where {@code x} and {@code y}
 * are {@code -Dx} and {@code -Dy} (default 0.5 each). Its best configuration is exactly x = 0.3, y = 0.7 (2 ms); the
 * corners of the unit square cost up to 198 ms. HTTP/1.1 on {@code 127.0.0.1:PORT}, plain sockets, a thread per
 * connection.
 *
 * <p>With {@code -Dworker.mb=M}, a fixed pool of {@code -Dworkers=N} threads (default 8) serves the requests instead,
 * and the server holds M MiB per worker, written at start: its capacity is N × 1000 / service ms req/s and its memory
 * grows by M MiB per worker — a known trade of memory for capacity, for the memory objective's frontier.
 *
 * <p>Run as {@code java -Dx=0.3 -Dy=0.7 -cp DIR Bowl PORT}. Prints {@code serving port=PORT service=MS ms} once it
 * listens.
 */
public class Bowl {
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java -Dx=X -Dy=Y Bowl.java PORT");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        double x = Double.parseDouble(System.getProperty("x", "0.5"));
        double y = Double.parseDouble(System.getProperty("y", "0.5"));
        double serviceMs = 2 + 400 * ((x - 0.3) * (x - 0.3) + (y - 0.7) * (y - 0.7));
        long serviceNanos = (long) (serviceMs * 1_000_000);
        String workerMb = System.getProperty("worker.mb");
        ExecutorService pool = null;
        if (workerMb != null) {
            int count = Integer.parseInt(System.getProperty("workers", "8"));
            held = new byte[count][];
            for (int worker = 0; worker < count; worker++) {
                held[worker] = new byte[Integer.parseInt(workerMb) << 20];
                Arrays.fill(held[worker], (byte) 1);
            }
            // Settled in the old generation now, so that no young collection under load copies them.
            System.gc();
            pool = Executors.newFixedThreadPool(count);
        }
        ExecutorService workers = pool;
        ServerSocket server = new ServerSocket(port, 64, InetAddress.getLoopbackAddress());
        System.out.println("serving port=" + port + " service=" + serviceMs + " ms");
        System.out.flush();
        while (true) {
            Socket socket = server.accept();
            Thread connection = new Thread(() -> serve(socket, serviceNanos, workers), "connection");
            connection.setDaemon(true);
            connection.start();
        }
    }

    /** The memory the workers hold ({@code -Dworker.mb}), kept for the server's life. */
    static byte[][] held;

    /**
     * Answers each request on the connection (HTTP/1.1, kept alive) with 200 {@code ok} after the service time, spent
     * on this thread or, with a pool, on one of its workers.
     */
    private static void serve(Socket socket, long serviceNanos, ExecutorService workers) {
        byte[] reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"
                .getBytes(StandardCharsets.US_ASCII);
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            int matched = 0;
            int next;
            while ((next = in.read()) != -1) {
                // The end of a request's head: CR LF CR LF.
                matched = next == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (next == '\r' ? 1 : 0);
                if (matched == 4) {
                    if (workers == null) {
                        sleep(serviceNanos);
                    } else {
                        workers.submit(() -> {
                            sleep(serviceNanos);
                            return null;
                        }).get();
                    }
                    out.write(reply);
                    out.flush();
                    matched = 0;
                }
            }
        } catch (IOException | InterruptedException | ExecutionException e) {
            // The client closed the connection.
        }
    }

    private static void sleep(long nanos) throws InterruptedException {
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    }
}
