import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Test target whose service time is a known function of two system properties, for jload's tune: every request
 * answers 200 {@code ok} after sleeping {@code 2 + 400 × ((x − 0.3)² + (y − 0.7)²)} ms, where {@code x} and {@code y}
 * are {@code -Dx} and {@code -Dy} (default 0.5 each). Its best configuration is exactly x = 0.3, y = 0.7 (2 ms); the
 * corners of the unit square cost up to 198 ms. HTTP/1.1 on {@code 127.0.0.1:PORT} by the JDK's own server
 * ({@code com.sun.net.httpserver}): its one dispatcher thread reads each request and schedules the answer, which a
 * timer thread sends once the service time is up, so that a waiting request holds up no other and each request costs
 * no more thread wake-ups than a thread per connection would (on a loaded machine each wake-up can cost milliseconds).
 *
 * <p>Run as {@code java -Dx=0.3 -Dy=0.7 -cp DIR Bowl PORT}. Prints {@code serving port=PORT service=MS ms} once it
 * listens.
 */
public class Bowl {
    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);
    private static final ScheduledExecutorService ANSWERS = Executors.newSingleThreadScheduledExecutor();

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
        // Headers and body leave in two writes: without TCP_NODELAY, Nagle's algorithm holds the body until the
        // client's delayed ACK (40 ms).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            ANSWERS.schedule(() -> answer(exchange), serviceNanos, TimeUnit.NANOSECONDS);
        });
        server.start();
        System.out.println("serving port=" + port + " service=" + serviceMs + " ms");
        System.out.flush();
    }

    /** Answers 200 {@code ok}, the connection kept alive. */
    private static void answer(HttpExchange exchange) {
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, OK.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(OK);
            }
        } catch (IOException e) {
            // The client closed the connection.
        }
    }
}
