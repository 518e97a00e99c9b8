package dev.jload.kv;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kv-service in its own JVM (this JDK, the test classpath), as jload starts it: options in, one start line out,
 * SIGTERM to stop. Every wait is bounded; {@link #close()} kills what is still running.
 */
final class ServiceProcess implements AutoCloseable {
    private static final Pattern PORT = Pattern.compile("^kv-service ready port=(\\d+) ");

    private final Process process;
    private final Path stderr;
    private final CompletableFuture<String> firstLine;

    ServiceProcess(String... jvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        if (Runtime.version().feature() >= 22) {
            command.add("--enable-native-access=ALL-UNNAMED"); // what the jar's manifest grants; here we run classes
        }
        command.addAll(List.of(jvmOptions));
        command.add(KvService.class.getName());
        stderr = Files.createTempFile("kv-service", ".err");
        process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        firstLine = CompletableFuture.supplyAsync(() -> {
            try {
                BufferedReader out = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                String line = out.readLine();
                return line == null ? "" : line;
            } catch (IOException e) {
                return "";
            }
        });
    }

    /** The start line, or "" if the process ended (or 20 s passed) without printing one. */
    String startLine() throws Exception {
        return firstLine.get(20, TimeUnit.SECONDS);
    }

    int port() throws Exception {
        Matcher m = PORT.matcher(startLine());
        if (!m.find()) {
            throw new AssertionError("no start line; stderr: " + stderr());
        }
        return Integer.parseInt(m.group(1));
    }

    /** Waits (at most 20 s) for the process to end by itself; returns its exit code. */
    int exitCode() throws Exception {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            throw new AssertionError("kv-service did not exit; stderr: " + stderr());
        }
        return process.exitValue();
    }

    /** Sends SIGTERM and returns the milliseconds until the JVM was gone (fails after 10 s). */
    long terminate() throws Exception {
        long start = System.nanoTime();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("kv-service ignored SIGTERM for 10 s");
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    int exitValue() {
        return process.exitValue();
    }

    String stderr() throws IOException {
        return Files.readString(stderr);
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(stderr);
    }
}
