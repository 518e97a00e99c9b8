import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Test target of a known fixed footprint, for jload's smallest-box search: it allocates {@code MIB} MiB of direct
 * memory, writes every page of it (so the kernel charges all of it to the target's cgroup), keeps it, then serves
 * HTTP/1.1 on {@code 127.0.0.1:PORT} over plain sockets, a thread per connection: every request answers 200 {@code ok}. Its memory stays the same while it serves.
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
        ServerSocket server = new ServerSocket(port, 64, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> accept(server), "acceptor");
        acceptor.start();
        System.out.println("serving port=" + port + " footprint=" + mib + " MiB");
        System.out.flush();
    }

    private static void accept(ServerSocket server) {
        while (true) {
            try {
                Socket socket = server.accept();
                Thread connection = new Thread(() -> serve(socket), "connection");
                connection.setDaemon(true);
                connection.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Answers each request on the connection (HTTP/1.1, kept alive) with 200 {@code ok}; bodies are not expected. */
    private static void serve(Socket socket) {
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
                    out.write(reply);
                    out.flush();
                    matched = 0;
                }
            }
        } catch (IOException e) {
            // The client closed the connection.
        }
    }
}
