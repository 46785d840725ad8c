package io.fsp.client.cli;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.control.ControlChannel;
import io.fsp.client.verify.VerificationMode;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp bench-stripe} (run by {@code bin/bench-stripe}): on one loopback setup (server and relays as
 * child processes), moves one generated file several times each way and prints the median time of each:
 * plain FTP RETR (TLS control, clear data), RETR followed by hashing the file from disk (sequential
 * verification), {@code fsp get} straight from the server only, and {@code fsp get} via the relays, each
 * with verification off and FIVER. Figures depend on the machine and its load; run it on a quiet machine.
 */
@Command(name = "bench-stripe", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Loopback benchmark: FTP RETR vs fsp get direct vs fsp get via relays, verification off and on.")
public final class BenchStripeCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--size-mb", defaultValue = "256", description = "File size in MiB (default: ${DEFAULT-VALUE}).")
    int sizeMb;

    @Option(names = "--runs", defaultValue = "3", description = "Runs per variant; the median is reported (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--relays", defaultValue = "3", description = "Relays (default: ${DEFAULT-VALUE}).")
    int relayCount;

    @Option(names = "--block-size", defaultValue = "1m", description = "Block size (default: ${DEFAULT-VALUE}).")
    String blockSize;

    private record Variant(String name, Run run) {
    }

    @FunctionalInterface
    private interface Run {
        void once(Path dest) throws Exception;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (sizeMb < 1 || runs < 1 || runs > 50 || relayCount < 1 || relayCount > 16) {
            spec.commandLine().getErr().println("fsp bench-stripe: --size-mb >= 1, --runs 1..50, --relays 1..16");
            return ExitCodes.USAGE;
        }
        Path work = Files.createTempDirectory("fsp-bench-");
        List<Process> children = new ArrayList<>();
        try {
            Path data = work.resolve("data");
            Files.createDirectories(data);
            out.printf("bench-stripe: generating %d MiB%n", sizeMb);
            out.flush();
            Path file = data.resolve("bench.bin");
            writeRandom(file, (long) sizeMb << 20);
            LoopbackSetup setup = LoopbackSetup.start(DemoCommand.binDirectory(), work, data, relayCount, children, out);
            long bytes = Files.size(file);
            List<Variant> variants = List.of(
                    new Variant("ftp RETR (TLS control, clear data)", dest -> retr(setup, dest, false)),
                    new Variant("ftp RETR, then SHA-256 of the file (sequential)", dest -> retr(setup, dest, true)),
                    new Variant("fsp get direct only, verify off", dest -> get(setup, dest, true, false, VerificationMode.OFF)),
                    new Variant("fsp get direct only, verify fiver", dest -> get(setup, dest, true, false, VerificationMode.FIVER)),
                    new Variant("fsp get via " + relayCount + " relays, verify off", dest -> get(setup, dest, false, true, VerificationMode.OFF)),
                    new Variant("fsp get via " + relayCount + " relays, verify fiver", dest -> get(setup, dest, false, true, VerificationMode.FIVER)));
            out.printf("bench-stripe: %d MiB file, block size %s, AES-256-GCM, %d runs each, median%n", sizeMb, blockSize, runs);
            out.printf("| %-50s | %9s | %9s |%n", "variant", "seconds", "MB/s");
            out.printf("|%s|%s|%s|%n", "-".repeat(52), "-".repeat(11), "-".repeat(11));
            out.flush();
            for (Variant v : variants) {
                double[] t = new double[runs];
                for (int i = 0; i < runs; i++) {
                    Path dest = work.resolve("received.bin");
                    Files.deleteIfExists(dest);
                    long start = System.nanoTime();
                    v.run().once(dest);
                    t[i] = (System.nanoTime() - start) / 1e9;
                    if (Files.size(dest) != bytes) {
                        throw new IllegalStateException(v.name() + ": received " + Files.size(dest) + " bytes (expected: " + bytes + ")");
                    }
                }
                Arrays.sort(t);
                double median = t[runs / 2];
                out.printf(Locale.ROOT, "| %-50s | %9.2f | %9.1f |%n", v.name(), median, bytes / 1e6 / median);
                out.flush();
            }
            return ExitCodes.OK;
        } finally {
            for (Process p : children) {
                p.destroy();
                p.waitFor();
            }
            DemoCommand.deleteTree(work);
        }
    }

    private static void writeRandom(Path file, long size) throws Exception {
        java.util.Random r = new java.util.Random(7);
        byte[] chunk = new byte[1 << 20];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (long left = size; left > 0; ) {
                r.nextBytes(chunk);
                int n = (int) Math.min(chunk.length, left);
                ch.write(ByteBuffer.wrap(chunk, 0, n));
                left -= n;
            }
        }
    }

    private static void retr(LoopbackSetup setup, Path dest, boolean hashAfter) throws Exception {
        try (ControlChannel c = ControlChannel.connect("127.0.0.1", setup.port(),
                PinnedTrustManager.of(Set.of(Fingerprint.parse(setup.fingerprint()))), Duration.ofSeconds(10))) {
            c.login("demo", setup.password().toCharArray(), false);
            ControlChannel.expect(c.command("TYPE I"), 200, "TYPE");
            int port = c.epsv();
            try (Socket data = c.openData(port, Duration.ofSeconds(10));
                 FileChannel f = FileChannel.open(dest, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                ControlChannel.expect(c.command("RETR /bench.bin"), 150, "RETR");
                InputStream in = data.getInputStream();
                byte[] buf = new byte[1 << 20];
                for (int n; (n = in.read(buf)) > 0; ) {
                    f.write(ByteBuffer.wrap(buf, 0, n));
                }
                f.force(false);
            }
            c.readTimeout(Duration.ofMinutes(5));
            ControlChannel.expect(c.read(), 226, "RETR");
        }
        if (hashAfter) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            try (FileChannel f = FileChannel.open(dest)) {
                ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                while (f.read(b.clear()) >= 0) {
                    md.update(b.flip());
                }
            }
        }
    }

    private void get(LoopbackSetup setup, Path dest, boolean direct, boolean relays, VerificationMode mode) throws Exception {
        CollectOptions o = new CollectOptions("127.0.0.1", setup.port(), "demo", setup.password().toCharArray(),
                "demo@127.0.0.1:" + setup.port(), "/bench.bin", dest,
                PinnedTrustManager.of(Set.of(Fingerprint.parse(setup.fingerprint()))),
                List.of("block-size=" + blockSize, "use-relays=" + (relays ? "on" : "off")), direct, 4, mode,
                Duration.ofSeconds(30), Duration.ofSeconds(10));
        CollectSummary s = new Collector(o).run();
        if (!s.complete()) {
            throw new IllegalStateException("fsp get incomplete: " + s.toText());
        }
    }
}
