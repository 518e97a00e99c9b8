import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Test target for jload's search of a started tree: a launcher that is itself a JVM (as Maven's exec:exec or Gradle's
 * run are) and starts the real service as a child JVM with its arguments, the way {@code java} would, sharing its
 * output, waiting for it and exiting with its exit code. Both JVMs publish PerfData; only the child serves the port.
 *
 * <p>Run with the source launcher: {@code java Launcher.java JAVA-ARGUMENTS...}.
 */
public class Launcher {
    public static void main(String[] args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).inheritIO().start();
        System.exit(child.waitFor());
    }
}
