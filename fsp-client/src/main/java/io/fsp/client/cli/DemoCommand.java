package io.fsp.client.cli;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp demo}: the whole system on loopback in one command. Generates a data set in a temporary
 * directory, starts {@code fsp-server} and three {@code fsp-relay}s as child processes (through the
 * launchers in {@code bin/}, which build what is missing), runs a striped, verified get through the relays,
 * compares the received tree with the original byte for byte, prints the summary and stops everything.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Starts a server and three relays on 127.0.0.1, stripes a generated data set through them, verifies it.")
public final class DemoCommand implements Callable<Integer> {
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+), certificate sha256 (\\S+)");

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--size-mb", defaultValue = "64", description = "Size of the data set in MiB (default: ${DEFAULT-VALUE}).")
    int sizeMb;

    @Option(names = "--relays", defaultValue = "3", description = "Number of relays (default: ${DEFAULT-VALUE}).")
    int relayCount;

    @Option(names = "--strategy", defaultValue = "fcfs", description = "fcfs, cyclic or partitioned (default: ${DEFAULT-VALUE}).")
    String strategy;

    @Option(names = "--include-direct", description = "Also stripe blocks straight to the client.")
    boolean includeDirect;

    @Option(names = "--keep", description = "Keep the temporary directory (data, logs, relay stores).")
    boolean keep;

    @Option(names = "--json", description = "Print the transfer summary as JSON.")
    boolean json;

    private final List<Process> children = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (sizeMb < 1 || sizeMb > 1 << 16 || relayCount < 1 || relayCount > 16) {
            spec.commandLine().getErr().println("fsp demo: --size-mb 1..65536, --relays 1..16");
            return ExitCodes.USAGE;
        }
        Path bin = binDirectory();
        Path work = Files.createTempDirectory("fsp-demo-");
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopAll));
        try {
            Path data = work.resolve("data");
            Path dataset = data.resolve("dataset");
            out.printf("fsp demo: generating %d MiB in %s%n", sizeMb, dataset);
            out.flush();
            generate(dataset, sizeMb);

            // The server's certificate is made here so that the relays can pin it before the server starts.
            Path serverState = work.resolve("server-state");
            Files.createDirectories(serverState);
            KeyMaterial serverKey = Certificates.selfSigned("fsp-server");
            Certificates.write(serverKey, serverState.resolve("server-cert.pem"), serverState.resolve("server-key.pem"));

            List<String> relaySpecs = new ArrayList<>();
            for (int i = 0; i < relayCount; i++) {
                Path dir = work.resolve("relay" + i);
                Files.createDirectories(dir);
                Matcher m = start(bin.resolve("fsp-relay"), work.resolve("relay" + i + ".log"),
                        "--listen", "127.0.0.1:0", "--store", dir.resolve("store").toString(),
                        "--state-dir", dir.resolve("state").toString(), "--quota", "4G", "--memory", "64M",
                        "--trust-server", serverKey.fingerprint().toString());
                relaySpecs.add(m.group(1) + ":" + m.group(2) + "=" + m.group(3));
                out.printf("fsp demo: relay %d on %s:%s%n", i, m.group(1), m.group(2));
                out.flush();
            }
            String password = HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(8));
            List<String> serverArgs = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", data.toString(),
                    "--user", "demo:" + password, "--state-dir", serverState.toString()));
            for (String r : relaySpecs) {
                serverArgs.add("--relay");
                serverArgs.add(r);
            }
            Matcher s = start(bin.resolve("fsp-server"), work.resolve("server.log"), serverArgs.toArray(String[]::new));
            int port = Integer.parseInt(s.group(2));
            out.printf("fsp demo: server on 127.0.0.1:%d, certificate sha256 %s%n", port, s.group(3));
            out.printf("fsp demo: fsp get fsp://demo@127.0.0.1:%d/dataset -o %s --trust %s --strategy %s%s%n", port,
                    work.resolve("received"), s.group(3), strategy, includeDirect ? " --include-direct" : "");
            out.flush();

            Path received = work.resolve("received");
            CollectOptions options = new CollectOptions("127.0.0.1", port, "demo", password.toCharArray(),
                    "demo@127.0.0.1:" + port, "/dataset", received,
                    PinnedTrustManager.of(Set.of(io.fsp.tls.Fingerprint.parse(s.group(3)))),
                    List.of("strategy=" + strategy), includeDirect, 4, VerificationMode.FIVER, Duration.ofSeconds(10),
                    Duration.ofSeconds(10));
            Collector collector = new Collector(options);
            CollectSummary summary;
            ProgressView progress = !json && System.console() != null ? new ProgressView(collector, out) : null;
            try {
                summary = collector.run();
            } finally {
                if (progress != null) {
                    progress.close();
                }
            }
            out.println(json ? summary.toJson() : summary.toText());
            Map<String, String> want = digests(dataset);
            Map<String, String> got = digests(received);
            boolean identical = want.equals(got);
            out.printf("fsp demo: %d files compared with the originals: %s%n", want.size(),
                    identical ? "byte-identical" : "DIFFERENT");
            out.flush();
            if (!summary.complete() || !identical) {
                return ExitCodes.VERIFICATION_FAILED;
            }
            return ExitCodes.OK;
        } finally {
            stopAll();
            if (keep) {
                out.println("fsp demo: kept " + work);
            } else {
                deleteTree(work);
            }
            out.flush();
        }
    }

    /** The launchers' directory: $FSP_HOME/bin, else found from where this class was loaded (MODULE/target/x.jar). */
    private static Path binDirectory() throws Exception {
        String home = System.getenv("FSP_HOME");
        if (home != null) {
            return Path.of(home, "bin");
        }
        Path jar = Path.of(DemoCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        for (Path p = jar; p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("bin").resolve("fsp-server"))) {
                return p.resolve("bin");
            }
        }
        throw new IOException("cannot find bin/fsp-server above " + jar + " (set FSP_HOME to the FSP checkout)");
    }

    /** Starts a launcher and waits for its "listening on HOST:PORT, certificate sha256 FP" line. */
    private Matcher start(Path launcher, Path log, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(launcher.toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        children.add(p);
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10); // the first run builds the module
        for (String line; (line = lines.readLine()) != null && System.nanoTime() < deadline; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> lines.lines().forEach(l -> { }), "drain");
                drain.setDaemon(true);
                drain.start();
                return m;
            }
        }
        throw new IOException(launcher.getFileName() + " did not start; see " + log + ":\n" + tail(log));
    }

    private static String tail(Path log) {
        try {
            List<String> l = Files.readAllLines(log);
            return String.join("\n", l.subList(Math.max(0, l.size() - 15), l.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private void stopAll() {
        for (Process p : children) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
        for (Process p : children) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        children.clear();
    }

    /**
     * A tree that exercises the format: one large file (most of the size), files whose sizes are not multiples of
     * the block size, an empty file, an empty and a nested directory, non-ASCII names.
     */
    static void generate(Path root, int sizeMb) throws IOException {
        Random random = new Random(42);
        Files.createDirectories(root.resolve("nested/deeper"));
        Files.createDirectories(root.resolve("empty-dir"));
        long big = (long) sizeMb * 1024 * 1024 * 3 / 4;
        writeRandom(root.resolve("large.bin"), big, random);
        long rest = (long) sizeMb * 1024 * 1024 - big;
        writeRandom(root.resolve("nested/odd-size.dat"), rest / 2 + 12345, random);
        writeRandom(root.resolve("nested/deeper/données-ü.bin"), rest / 4 + 777, random);
        writeRandom(root.resolve("nested/日本語.txt"), 4097, random);
        Files.write(root.resolve("empty.txt"), new byte[0]);
        Files.writeString(root.resolve("README.txt"), "FSP demo data set\n".repeat(1000));
    }

    private static void writeRandom(Path file, long size, Random random) throws IOException {
        byte[] chunk = new byte[1 << 20];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long left = size; left > 0; ) {
                random.nextBytes(chunk);
                int n = (int) Math.min(chunk.length, left);
                ch.write(ByteBuffer.wrap(chunk, 0, n));
                left -= n;
            }
        }
    }

    /** SHA-256 of every regular file, by relative name; directories by name with "dir". */
    static Map<String, String> digests(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(p -> !p.equals(root)).toList()) {
                String name = root.relativize(p).toString().replace('\\', '/');
                if (Files.isDirectory(p)) {
                    out.put(name, "dir");
                } else {
                    MessageDigest md = MessageDigest.getInstance("SHA-256");
                    try (FileChannel ch = FileChannel.open(p)) {
                        ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                        while (ch.read(b.clear()) >= 0) {
                            md.update(b.flip());
                        }
                    }
                    out.put(name, HexFormat.of().formatHex(md.digest()));
                }
            }
        }
        return out;
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory; the OS cleans it eventually
        }
    }
}
