package io.fsp.cli;

import io.fsp.cli.demo.DemoTree;
import io.fsp.cli.demo.LocalCopy;
import io.fsp.cli.demo.LoopbackSetup;
import io.fsp.cli.demo.LoopbackWork;
import io.fsp.cli.demo.TreeComparison;
import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.tls.PinnedTrustManager;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp demo}: the whole system on loopback in one command. Generates a tree shaped like real data (many
 * small files, a few large ones: {@link DemoTree}) in a temporary directory, starts {@code fsp-server} and three
 * {@code fsp-relay}s as child processes (through the launchers in {@code bin/}, which build what is missing), runs
 * a striped, verified get through the relays, copies the same tree with a plain local copy on the same disk
 * ({@link LocalCopy}) for comparison, compares the received tree with the original byte for byte, prints a few
 * lines (or one JSON object) and stops everything.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Starts a server and three relays on 127.0.0.1, stripes a generated tree (many small files, a few "
                + "large ones) through them, verifies it, and sets the time beside a plain local copy of the same tree."})
public final class DemoCommand implements Callable<Integer> {
    /** The generator's seed: every run makes the same tree. */
    static final long SEED = 42;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--size-mb", defaultValue = "256",
            description = "Total size of the data set in MiB, small and large files together (default: ${DEFAULT-VALUE}).")
    int sizeMb;

    @Option(names = "--small-files", defaultValue = "1000",
            description = "Number of small files (0-64 KiB) in several directories; the rest of the size goes to a few "
                    + "large files of about 40 MiB (default: ${DEFAULT-VALUE}).")
    int smallFiles;

    @Option(names = "--relays", defaultValue = "3", description = "Number of relays (default: ${DEFAULT-VALUE}).")
    int relayCount;

    @Option(names = "--strategy", defaultValue = "fcfs", description = "fcfs, cyclic or partitioned (default: ${DEFAULT-VALUE}).")
    String strategy;

    @Option(names = "--include-direct", description = "Also stripe blocks straight to the client.")
    boolean includeDirect;

    @Option(names = "--keep", description = "Keep the temporary directory (data, received tree, local copy, logs, relay stores).")
    boolean keep;

    @Option(names = "--json", description = "Print one JSON object (the transfer summary and the demo's figures) on "
            + "standard output; the progress lines go to standard error.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter say = json ? spec.commandLine().getErr() : out;
        if (sizeMb < 1 || sizeMb > 1 << 16 || relayCount < 1 || relayCount > 16 || smallFiles < 0 || smallFiles > 100_000) {
            spec.commandLine().getErr().println("fsp demo: --size-mb 1..65536, --small-files 0..100000, --relays 1..16");
            return ExitCodes.USAGE;
        }
        Path bin = LoopbackSetup.binDirectory();
        LoopbackWork run = LoopbackWork.create("fsp-demo-");
        Path work = run.dir();
        try {
            Path data = work.resolve("data");
            Path dataset = data.resolve("dataset");
            long t0 = System.nanoTime();
            DemoTree.Shape shape = DemoTree.generate(dataset, (long) sizeMb << 20, smallFiles, SEED);
            double generated = seconds(t0);
            say.printf(Locale.ROOT, "fsp demo: %,d files in %,d directories, %,d bytes (%,d small of 0-64 KiB, %d large of %s), "
                            + "generated in %.1f s%n", shape.files(), shape.directories(), shape.bytes(), shape.smallFiles(),
                    shape.largeFiles(), range(shape.largeMin(), shape.largeMax()), generated);
            say.flush();

            long t1 = System.nanoTime();
            LoopbackSetup setup = LoopbackSetup.start(bin, work, data, relayCount, run.children(),
                    new PrintWriter(Writer.nullWriter()));
            int port = setup.port();
            say.printf(Locale.ROOT, "fsp demo: a server and %d relay%s on 127.0.0.1 started in %.1f s%n", relayCount,
                    relayCount == 1 ? "" : "s", seconds(t1));
            say.flush();

            Path received = work.resolve("received");
            CollectOptions options = new CollectOptions("127.0.0.1", port, "demo", setup.password().toCharArray(),
                    "demo@127.0.0.1:" + port, "/dataset", received,
                    PinnedTrustManager.of(Set.of(io.fsp.tls.Fingerprint.parse(setup.fingerprint()))),
                    FspFlags.withText(FspOptions.NONE, FspOption.STRATEGY, strategy), includeDirect, 4, VerificationMode.FIVER, Duration.ofSeconds(10),
                    Duration.ofSeconds(10));
            Collector collector = new Collector(options);
            CollectSummary summary;
            ProgressView progress = !json && Invocation.current().terminal() ? new ProgressView(collector, out) : null;
            long t2 = System.nanoTime();
            try {
                summary = collector.run();
            } finally {
                if (progress != null) {
                    progress.close();
                }
            }
            double fspSeconds = seconds(t2);

            LocalCopy copy = LocalCopy.of(dataset, work.resolve("local-copy"));
            TreeComparison compared = TreeComparison.of(dataset, received);
            Figures f = new Figures(shape, summary, fspSeconds, copy, compared, relayCount, strategy, includeDirect);
            if (json) {
                out.println(summary.toJson(f.json()));
            } else {
                out.print(f.text());
            }
            out.flush();
            return f.ok() ? ExitCodes.OK : ExitCodes.VERIFICATION_FAILED;
        } finally {
            if (keep) {
                run.keep();
                say.println("fsp demo: kept " + work);
            }
            run.close();
            say.flush();
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /** "19-56 MiB" (rounded, in the unit of the larger end), "28 MiB" when both ends round alike. */
    static String range(long min, long max) {
        int shift = max >= 1 << 20 ? 20 : 10;
        long lo = (min + (1L << (shift - 1))) >> shift;
        long hi = (max + (1L << (shift - 1))) >> shift;
        return (lo == hi ? Long.toString(hi) : lo + "-" + hi) + (shift == 20 ? " MiB" : " KiB");
    }

    /** What the demo shows, for people ({@link #text}) and as JSON ({@link #json}). */
    record Figures(DemoTree.Shape shape, CollectSummary summary, double fspSeconds, LocalCopy copy,
                   TreeComparison compared, int relays, String strategy, boolean includeDirect) {

        double fspMegabytesPerSecond() {
            return fspSeconds > 0 ? summary.bytes() / 1e6 / fspSeconds : 0;
        }

        /** Blocks verified on disk (the demo verifies with FIVER), whatever their source. */
        long blocksVerified() {
            return summary.blocksBySource().values().stream().mapToLong(Long::longValue).sum();
        }

        long retries() {
            return summary.retries().values().stream().mapToLong(Long::longValue).sum();
        }

        boolean ok() {
            return summary.complete() && summary.verified() && compared.identical();
        }

        String via() {
            return relays + " relay" + (relays == 1 ? "" : "s") + (includeDirect ? " and direct" : "");
        }

        String text() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(Locale.ROOT, "fsp demo: FSP        %7.2f s %7.1f MB/s  fsp get via %s (%s): TLS, AES-GCM, "
                    + "striped, every block verified on disk, fdatasync%n", fspSeconds, fspMegabytesPerSecond(), via(), strategy));
            sb.append(String.format(Locale.ROOT, "fsp demo: local copy %7.2f s %7.1f MB/s  %s per file, same disk, one thread: "
                    + "no encryption, no verification, no fsync%n", copy.seconds(), copy.megabytesPerSecond(), LocalCopy.METHOD));
            sb.append(String.format(Locale.ROOT, "fsp demo: %,d of %,d blocks verified; sources", blocksVerified(), summary.blocks()));
            summary.blocksBySource().forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
            sb.append(String.format(Locale.ROOT, "; %d retries%n", retries()));
            if (summary.error() != null) {
                sb.append("fsp demo: error: ").append(summary.error()).append(System.lineSeparator());
            }
            if (ok()) {
                sb.append(String.format(Locale.ROOT, "fsp demo: OK: all %,d files and %,d directories received are "
                        + "byte-identical with the originals%n", compared.files(), compared.directories()));
            } else {
                sb.append("fsp demo: FAILED:").append(summary.complete() ? "" : " transfer incomplete;")
                        .append(summary.verified() ? "" : " not every block verified;")
                        .append(compared.identical() ? "" : " the received tree differs: " + compared.differences())
                        .append(System.lineSeparator());
            }
            return sb.toString();
        }

        /** The demo's figures as {@code ,"demo":{…}}, to end the summary's JSON object. */
        String json() {
            StringBuilder sources = new StringBuilder("{");
            summary.blocksBySource().forEach((k, v) -> sources.append(sources.length() > 1 ? "," : "")
                    .append(CollectSummary.quote(k)).append(':').append(v));
            sources.append('}');
            return String.format(Locale.ROOT, ",\"demo\":{\"files\":%d,\"directories\":%d,\"bytes\":%d,\"small_files\":%d,"
                            + "\"small_bytes\":%d,\"large_files\":%d,\"large_min_bytes\":%d,\"large_max_bytes\":%d,"
                            + "\"fsp\":{\"seconds\":%.3f,\"mb_per_s\":%.1f,\"relays\":%d,\"include_direct\":%b,\"strategy\":%s},"
                            + "\"local_copy\":{\"method\":%s,\"files\":%d,\"bytes\":%d,\"seconds\":%.3f,\"mb_per_s\":%.1f},"
                            + "\"blocks\":%d,\"blocks_verified\":%d,\"sources\":%s,\"retries\":%d,"
                            + "\"compared\":{\"files\":%d,\"directories\":%d,\"bytes\":%d,\"identical\":%b,\"differences\":%s},"
                            + "\"verdict\":%s}",
                    shape.files(), shape.directories(), shape.bytes(), shape.smallFiles(), shape.smallBytes(),
                    shape.largeFiles(), shape.largeMin(), shape.largeMax(),
                    fspSeconds, fspMegabytesPerSecond(), relays, includeDirect, CollectSummary.quote(strategy),
                    CollectSummary.quote(LocalCopy.METHOD), copy.files(), copy.bytes(), copy.seconds(), copy.megabytesPerSecond(),
                    summary.blocks(), blocksVerified(), sources, retries(),
                    compared.files(), compared.directories(), compared.bytes(), compared.identical(),
                    CollectSummary.quote(compared.differences()), CollectSummary.quote(ok() ? "OK" : "FAILED"));
        }
    }
}
