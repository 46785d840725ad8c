package io.fsp.client.cli;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.client.demo.LoopbackSetup;
import io.fsp.client.demo.LoopbackWork;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
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

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (sizeMb < 1 || sizeMb > 1 << 16 || relayCount < 1 || relayCount > 16) {
            spec.commandLine().getErr().println("fsp demo: --size-mb 1..65536, --relays 1..16");
            return ExitCodes.USAGE;
        }
        Path bin = LoopbackSetup.binDirectory();
        LoopbackWork run = LoopbackWork.create("fsp-demo-");
        Path work = run.dir();
        try {
            Path data = work.resolve("data");
            Path dataset = data.resolve("dataset");
            out.printf("fsp demo: generating %d MiB in %s%n", sizeMb, dataset);
            out.flush();
            generate(dataset, sizeMb);

            LoopbackSetup setup = LoopbackSetup.start(bin, work, data, relayCount, run.children(), out);
            int port = setup.port();
            String password = setup.password();
            out.printf("fsp demo: fsp get fsp://demo@127.0.0.1:%d/dataset -o %s --trust %s --strategy %s%s%n", port,
                    work.resolve("received"), setup.fingerprint(), strategy, includeDirect ? " --include-direct" : "");
            out.flush();

            Path received = work.resolve("received");
            CollectOptions options = new CollectOptions("127.0.0.1", port, "demo", password.toCharArray(),
                    "demo@127.0.0.1:" + port, "/dataset", received,
                    PinnedTrustManager.of(Set.of(io.fsp.tls.Fingerprint.parse(setup.fingerprint()))),
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
            if (keep) {
                run.keep();
                out.println("fsp demo: kept " + work);
            }
            run.close();
            out.flush();
        }
    }

    /** The launchers' directory: $FSP_HOME/bin, else found from where this class was loaded (MODULE/target/x.jar). */
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
}
