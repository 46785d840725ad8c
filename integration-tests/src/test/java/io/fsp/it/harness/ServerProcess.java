package io.fsp.it.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code fsp-server} as a real separate process ({@code java -cp ... io.fsp.server.ServerCommand}).
 *
 * <p>{@link #start} waits for one {@code fsp-server: listening on ADDR, certificate sha256 FP} line
 * per {@code --listen} option; everything the process prints is kept for failure reports.
 */
public final class ServerProcess implements AutoCloseable {
    public static final String MAIN_CLASS = "io.fsp.server.ServerCommand";
    private static final Pattern LISTENING =
            Pattern.compile("fsp-server: listening on (\\[[0-9a-fA-F:.]+]|[0-9.]+):(\\d+), certificate sha256 ([0-9A-Fa-f:]+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final List<String> command;
    private final Path root;
    private final StringBuffer output = new StringBuffer();
    private final List<InetSocketAddress> listening = new ArrayList<>();
    private String fingerprint;

    private ServerProcess(Process process, List<String> command, Path root) {
        this.process = process;
        this.command = List.copyOf(command);
        this.root = root;
    }

    /**
     * Starts {@code fsp-server} with {@code arguments} and waits until it listens on {@code listenCount} addresses.
     * SIGHUP has its default disposition in the server, as from a shell, even when the tests themselves run under
     * {@code nohup} (which the server would inherit and then could not be reloaded).
     */
    public static ServerProcess start(Path root, List<String> arguments, int listenCount) throws IOException {
        return start(root, arguments, listenCount, java.util.Map.of());
    }

    /** As above, with {@code environment} added to the server process's environment. */
    public static ServerProcess start(Path root, List<String> arguments, int listenCount,
                                      java.util.Map<String, String> environment) throws IOException {
        return start(root, arguments, listenCount, environment, List.of("env", "--default-signal=HUP"));
    }

    /** As {@link #start(Path, List, int)}, started by {@code nohup}: SIGHUP is ignored from the process's start. */
    public static ServerProcess startUnderNohup(Path root, List<String> arguments, int listenCount) throws IOException {
        return start(root, arguments, listenCount, java.util.Map.of(), List.of("nohup"));
    }

    private static ServerProcess start(Path root, List<String> arguments, int listenCount,
                                       java.util.Map<String, String> environment, List<String> prefix) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String javaOptions = System.getProperty("fsp.it.serverJavaOptions", "").trim();
        if (!javaOptions.isEmpty()) {
            command.addAll(Arrays.asList(javaOptions.split("\\s+")));
        }
        command.add("-cp");
        command.add(classPath());
        command.add(MAIN_CLASS);
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        builder.redirectErrorStream(true);
        ServerProcess server = new ServerProcess(builder.start(), command, root);
        try {
            server.awaitListening(listenCount);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private static String classPath() {
        // -Dfsp.it.serverClasspath=... runs the tests against another build of the server.
        String override = System.getProperty("fsp.it.serverClasspath");
        if (override != null && !override.isBlank()) {
            return override;
        }
        String path = System.getProperty("fsp.it.classpath");
        if (path == null || path.isBlank() || path.startsWith("${")) {
            // Running from an IDE: the test JVM's own class path holds the server.
            path = System.getProperty("java.class.path");
        }
        return path;
    }

    private void awaitListening(int listenCount) throws IOException {
        InputStream in = process.getInputStream();
        Thread pump = new Thread(() -> pump(in), "fsp-server-output");
        pump.setDaemon(true);
        pump.start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        synchronized (listening) {
            while (listening.size() < listenCount) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (!process.isAlive() && listening.size() < listenCount) {
                    waitForPump(pump);
                    throw new IOException("fsp-server exited with " + process.exitValue()
                            + " before listening; command: " + String.join(" ", commandForDisplay())
                            + "\n--- output ---\n" + output);
                }
                if (left <= 0) {
                    throw new IOException("fsp-server printed " + listening.size() + " listening lines in "
                            + START_TIMEOUT.toSeconds() + " s (expected: " + listenCount + ")\n--- output ---\n" + output);
                }
                try {
                    listening.wait(Math.min(left, 200));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for fsp-server", e);
                }
            }
        }
    }

    private static void waitForPump(Thread pump) {
        try {
            pump.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pump(InputStream in) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                output.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    String host = m.group(1);
                    if (host.startsWith("[")) {
                        host = host.substring(1, host.length() - 1);
                    }
                    synchronized (listening) {
                        listening.add(new InetSocketAddress(host, Integer.parseInt(m.group(2))));
                        fingerprint = m.group(3);
                        listening.notifyAll();
                    }
                }
            }
        } catch (IOException e) {
            output.append("[output closed: ").append(e.getMessage()).append("]\n");
        }
    }

    /** The first listening address that is IPv4 (127.0.0.1). */
    /** The command line the server was started with. */
    public List<String> command() {
        return command;
    }

    public InetSocketAddress ipv4() {
        return listeningWhere(false);
    }

    /** The first listening address that is IPv6 (::1). */
    public InetSocketAddress ipv6() {
        return listeningWhere(true);
    }

    private InetSocketAddress listeningWhere(boolean ipv6) {
        synchronized (listening) {
            return listening.stream()
                    .filter(a -> (a.getAddress() instanceof java.net.Inet6Address) == ipv6)
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("fsp-server does not listen on any "
                            + (ipv6 ? "IPv6" : "IPv4") + " address: " + listening));
        }
    }

    public int port() {
        return ipv4().getPort();
    }

    /** The SHA-256 fingerprint of the server's certificate, as printed ({@code AB:CD:...}). */
    public String certificateFingerprint() {
        synchronized (listening) {
            return fingerprint;
        }
    }

    public Path root() {
        return root;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Files under {@code dir} the server process holds open now (from /proc/PID/fd): after a
     * transfer ended, however it ended, this must become empty.
     */
    public List<String> openFilesUnder(Path dir) {
        List<String> open = new ArrayList<>();
        Path fds = Path.of("/proc", String.valueOf(pid()), "fd");
        try (var entries = java.nio.file.Files.list(fds)) {
            for (Path fd : entries.toList()) {
                try {
                    Path target = java.nio.file.Files.readSymbolicLink(fd);
                    if (target.startsWith(dir)) {
                        open.add(target.toString());
                    }
                } catch (IOException ignored) {
                    // closed while we looked
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + fds + ": " + e.getMessage(), e);
        }
        return open;
    }

    /** Waits up to {@code timeout} for {@link #openFilesUnder} to become empty and returns what is still open. */
    public List<String> awaitNoOpenFilesUnder(Path dir, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> open = openFilesUnder(dir);
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            open = openFilesUnder(dir);
        }
        return open;
    }

    /** Everything the server printed so far (stdout and stderr). */
    public String output() {
        return output.toString();
    }

    /** Output lines containing Netty's leak report; empty when nothing leaked (or was collected yet). */
    public List<String> leakReports() {
        return output().lines().filter(l -> l.contains("LEAK:")).toList();
    }

    private List<String> commandForDisplay() {
        List<String> shown = new ArrayList<>(command);
        int cp = shown.indexOf("-cp");
        if (cp >= 0 && cp + 1 < shown.size()) {
            shown.set(cp + 1, "<test class path>");
        }
        return shown;
    }

    public String describe() {
        return "pid " + pid() + (isAlive() ? " (running)" : " (exited " + process.exitValue() + ")")
                + ": " + String.join(" ", commandForDisplay());
    }

    /** Ends the process at once (SIGKILL), as the loss of its machine would. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
