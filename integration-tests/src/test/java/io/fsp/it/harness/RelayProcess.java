package io.fsp.it.harness;

import io.fsp.tls.Fingerprint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code fsp-relay} as a real separate process ({@code java -cp … io.fsp.relay.RelayCommand}) on
 * {@code 127.0.0.1}, with its store and certificate under a test directory; with faults, the test-support
 * module's relay program ({@link #FAULTY_MAIN_CLASS}), since the shipped one has no way to misbehave. {@link #start} returns once
 * the relay printed its {@code listening on …, certificate sha256 …} line; {@link #kill()} ends it the
 * hard way, as a crashed relay ends.
 */
public final class RelayProcess implements AutoCloseable {
    public static final String MAIN_CLASS = "io.fsp.relay.RelayCommand";
    public static final String FAULTY_MAIN_CLASS = io.fsp.testkit.relay.FaultyRelayCommand.class.getName();
    private static final Pattern LISTENING = Pattern.compile(
            "fsp-relay: listening on ([0-9.]+):(\\d+), certificate sha256 ([0-9A-F:]{95})");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final Path store;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<Matcher> listening = new CompletableFuture<>();

    private RelayProcess(Process process, Path store) {
        this.process = process;
        this.store = store;
    }

    /**
     * Starts a relay trusting {@code server}, keeping blocks in {@code dir/store} and its certificate in
     * {@code dir/state}; {@code options} are added as given (e.g. {@code --memory 0}).
     */
    public static RelayProcess start(Path dir, Fingerprint server, String... options) throws IOException {
        return start(dir, new InetSocketAddress("127.0.0.1", 0), server, options);
    }

    /** As {@link #start(Path, Fingerprint, String...)}, trusting no server: one joins it ({@code fsp-relay join}). */
    public static RelayProcess withoutTrust(Path dir, String... options) throws IOException {
        return start(MAIN_CLASS, dir, new InetSocketAddress("127.0.0.1", 0), null, options);
    }

    /**
     * As {@link #start(Path, Fingerprint, String...)}, a relay that misbehaves towards clients: {@code options} may
     * hold {@code --fault SPEC} too (e.g. {@code --fault stall}).
     */
    public static RelayProcess withFaults(Path dir, Fingerprint server, String... options) throws IOException {
        return start(FAULTY_MAIN_CLASS, dir, new InetSocketAddress("127.0.0.1", 0), server, options);
    }

    /**
     * As {@link #start(Path, Fingerprint, String...)}, listening on {@code listen}: a relay started again with the
     * same {@code dir} and address is the same relay to its peers (certificate, store, host and port).
     */
    public static RelayProcess start(Path dir, InetSocketAddress listen, Fingerprint server, String... options)
            throws IOException {
        return start(MAIN_CLASS, dir, listen, server, options);
    }

    private static RelayProcess start(String mainClass, Path dir, InetSocketAddress listen, Fingerprint server,
                                      String... options) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String javaOptions = System.getProperty("fsp.it.serverJavaOptions", "").trim();
        if (!javaOptions.isEmpty()) {
            command.addAll(Arrays.asList(javaOptions.split("\\s+")));
        }
        String classPath = System.getProperty("fsp.it.classpath");
        if (classPath == null || classPath.isBlank() || classPath.startsWith("${")) {
            classPath = System.getProperty("java.class.path");
        }
        command.addAll(List.of("-cp", classPath, mainClass, "--listen",
                listen.getAddress().getHostAddress() + ":" + listen.getPort(),
                "--store", dir.resolve("store").toString(), "--state-dir", dir.resolve("state").toString()));
        if (server != null) {
            command.addAll(List.of("--trust-server", server.toString()));
        }
        command.addAll(Arrays.asList(options));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        RelayProcess relay = new RelayProcess(p, dir.resolve("store"));
        Thread pump = new Thread(relay::pump, "fsp-relay-output");
        pump.setDaemon(true);
        pump.start();
        try {
            relay.listening.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            relay.kill();
            throw new IOException("fsp-relay did not start within " + START_TIMEOUT.toSeconds() + " s\n--- output ---\n"
                    + relay.output, e);
        } catch (InterruptedException e) {
            relay.kill();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting fsp-relay", e);
        }
        return relay;
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    listening.complete(m);
                }
            }
        } catch (IOException e) {
            output.append("[output closed: ").append(e.getMessage()).append("]\n");
        }
        listening.completeExceptionally(new IOException("fsp-relay exited before listening"));
    }

    public InetSocketAddress address() {
        Matcher m = listening.join();
        return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
    }

    /** The fingerprint the relay printed: what servers and clients pin. */
    public Fingerprint fingerprint() {
        return Fingerprint.parse(listening.join().group(3));
    }

    /** Where the relay keeps its certificate (and the servers it joined). */
    public Path stateDir() {
        return store.resolveSibling("state");
    }

    /** Where the relay spills blocks. */
    public Path store() {
        return store;
    }

    /**
     * The block files in the store (of every transfer, or of the transfer {@code transferId} names when not null),
     * once there are none or after {@code seconds}: a relay frees blocks a moment after it answered.
     */
    public List<Path> blockFiles(String transferId, int seconds) throws IOException, InterruptedException {
        Path under = transferId == null ? store : store.resolve(transferId);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            List<Path> left = null;
            try (Stream<Path> s = Files.isDirectory(under) ? Files.walk(under) : Stream.empty()) {
                left = s.filter(p -> p.getFileName().toString().endsWith(".blk")).toList();
            } catch (UncheckedIOException | NoSuchFileException e) {
                // the relay removed a file or directory while it was walked: look again
            }
            if (left != null && (left.isEmpty() || System.nanoTime() > deadline)) {
                return left;
            }
            Thread.sleep(100);
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** Everything the relay printed so far (stdout and stderr). */
    public String output() {
        return output.toString();
    }

    /** Ends the process at once (SIGKILL), as a crash would. */
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
                kill();
            }
        } catch (InterruptedException e) {
            kill();
            Thread.currentThread().interrupt();
        }
    }
}
