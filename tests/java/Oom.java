import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Dies of one kind of Java OutOfMemoryError, uncaught, for jload's crash judgement (tests/java_oom.rs): {@code heap}
 * fills the heap (run it with a small -Xmx), {@code direct} allocates direct buffers past
 * -XX:MaxDirectMemorySize. Prints "ready" first, as a target would.
 */
public class Oom {
    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        List<Object> kept = new ArrayList<>();
        switch (args[0]) {
            case "heap" -> {
                while (true) kept.add(new long[1 << 16]);
            }
            case "direct" -> {
                while (true) kept.add(ByteBuffer.allocateDirect(1 << 20));
            }
            default -> throw new IllegalArgumentException("heap or direct, not " + args[0]);
        }
    }
}
