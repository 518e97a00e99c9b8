import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Test target whose service time is a known function of two system properties, for jload's tune: every request
 * answers 200 {@code ok} after sleeping {@code 2 + 400 × ((x − 0.3)² + (y − 0.7)²)} ms, where {@code x} and {@code y}
 * are {@code -Dx} and {@code -Dy} (default 0.5 each). Its best configuration is exactly x = 0.3, y = 0.7 (2 ms); the
 * corners of the unit square cost up to 198 ms. HTTP/1.1 on {@code 127.0.0.1:PORT}, plain sockets, a thread per
 * connection.
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
        ServerSocket server = new ServerSocket(port, 64, InetAddress.getLoopbackAddress());
        System.out.println("serving port=" + port + " service=" + serviceMs + " ms");
        System.out.flush();
        while (true) {
            Socket socket = server.accept();
            Thread connection = new Thread(() -> serve(socket, serviceNanos), "connection");
            connection.setDaemon(true);
            connection.start();
        }
    }

    /** Answers each request on the connection (HTTP/1.1, kept alive) with 200 {@code ok} after the service time. */
    private static void serve(Socket socket, long serviceNanos) {
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
                    Thread.sleep(serviceNanos / 1_000_000, (int) (serviceNanos % 1_000_000));
                    out.write(reply);
                    out.flush();
                    matched = 0;
                }
            }
        } catch (IOException | InterruptedException e) {
            // The client closed the connection.
        }
    }
}
