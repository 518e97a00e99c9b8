import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * Test target for program arguments: a small HTTP service configured only by its command-line arguments, as WireMock
 * and Spring Boot are. {@code --port N} (required) is the loopback port it serves; {@code --delay-ms D} makes every
 * answer wait D ms first (default 0), so the arguments it was given show in its latency; any other argument is only
 * recorded. It prints {@code argv: ARG ARG …} (every argument, in order, space-separated) once it listens, and answers
 * every request with 200 and the same words. It exits by itself after ten minutes at the latest.
 *
 * <p>Run as {@code java -cp DIR Argv [--delay-ms D] [WORDS…] --port N}.
 */
public class Argv {
    private static final long MAX_LIFETIME_MS = 10 * 60 * 1000;

    public static void main(String[] args) throws IOException, InterruptedException {
        int port = -1;
        long delayMs = 0;
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--port")) {
                port = Integer.parseInt(args[i + 1]);
            } else if (args[i].equals("--delay-ms")) {
                delayMs = Long.parseLong(args[i + 1]);
            }
        }
        if (port < 0) {
            System.err.println("usage: java Argv [--delay-ms D] [WORDS…] --port N");
            System.exit(2);
        }
        String argv = String.join(" ", args);
        byte[] body = argv.getBytes(StandardCharsets.UTF_8);
        long delay = delayMs;
        // Headers and body leave in two writes: without TCP_NODELAY, Nagle's algorithm holds the body until the
        // client's delayed ACK (40 ms).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (delay > 0) {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        System.out.println("argv: " + argv);
        System.out.flush();
        Thread.sleep(MAX_LIFETIME_MS);
        System.exit(0);
    }
}
