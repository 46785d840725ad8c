package io.fsp.bench;

import io.fsp.cli.ExitCodes;
import io.fsp.cli.demo.LoopbackSetup;
import io.fsp.cli.demo.LoopbackWork;
import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import java.io.PrintWriter;
import java.nio.file.Files;
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
 * Recovery of damaged blocks from the relays that still hold them, against fetching them again from the
 * origin (poster 003). Starts a server and relays on loopback (child processes) whose relays damage the
 * first serving of every Nth block of each transfer (the test-support module's relay program,
 * {@code io.fsp.testkit.relay.FaultyRelayCommand --fault flip-bit-once-every:N}), then moves one file again and
 * again, alternating the client's two ways: a damaged block fetched once more from its relay (the default), or
 * straight from the origin ({@link CollectOptions#withRelayRecovery} off). Prints, for each, the
 * median time from finding a block damaged to its good copy verified on disk, and the transfer time.
 */
@Command(name = "recovery", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Loopback benchmark: damaged blocks recovered from relay caches vs from the origin.")
public final class BenchRecoveryCommand implements Callable<Integer> {
    private static final String FILE = "bench.bin";
    /** The relay program with faults, from the test-support module (bin/launch builds it when missing). */
    private static final String FAULTY_RELAY = "io.fsp.testkit.relay.FaultyRelayCommand";

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--size-mb", defaultValue = "128", description = "File size in MiB (default: ${DEFAULT-VALUE}).")
    int sizeMb;

    @Option(names = "--runs", defaultValue = "5", description = "Transfers per way, interleaved; medians are reported (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--relays", defaultValue = "3", description = "Relays (default: ${DEFAULT-VALUE}).")
    int relayCount;

    @Option(names = "--block-size", defaultValue = "1m", description = "Block size (default: ${DEFAULT-VALUE}).")
    String blockSize;

    @Option(names = "--every", defaultValue = "16", description = "Damage every Nth block of each transfer on its way to the client (default: ${DEFAULT-VALUE}).")
    int every;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (sizeMb < 1 || runs < 1 || runs > 50 || relayCount < 1 || relayCount > 16 || every < 1) {
            spec.commandLine().getErr().println("fsp-bench recovery: --size-mb >= 1, --runs 1..50, --relays 1..16, --every >= 1");
            return ExitCodes.USAGE;
        }
        try (LoopbackWork run = LoopbackWork.create("fsp-bench-recovery-")) {
            Path work = run.dir();
            Path data = work.resolve("data");
            Files.createDirectories(data);
            out.printf("bench-recovery: generating %d MiB of random data%n", sizeMb);
            out.flush();
            BenchStripeCommand.writeRandom(data.resolve(FILE), (long) sizeMb << 20);
            Path bin = LoopbackSetup.binDirectory();
            LoopbackSetup setup = LoopbackSetup.start(bin, work, data, relayCount, "256M",
                    List.of(bin.resolve("launch").toString(), "fsp-testkit", FAULTY_RELAY, "--fault",
                            "flip-bit-once-every:" + every), run.children(), out);
            String before = BenchStripeCommand.loadAverage();
            Path dest = work.resolve("received.bin");
            get(setup, dest, true); // untimed: the JIT compilers of server, relays and this JVM warm up
            get(setup, dest, false);
            out.println("bench-recovery: warm-up done");
            out.flush();
            String[] ways = {"relay", "origin"};
            double[][] recovery = new double[2][runs];
            double[][] seconds = new double[2][runs];
            int[] damaged = new int[2];
            for (int i = 0; i < runs; i++) {
                for (int w = 0; w < 2; w++) {
                    CollectSummary s = get(setup, dest, w == 0);
                    CollectSummary.Recovery r = s.recoveries().get(ways[w]);
                    if (r == null || s.recoveries().size() != 1) {
                        throw new IllegalStateException("expected damaged blocks recovered only from " + ways[w] + ": " + s.toText());
                    }
                    recovery[w][i] = r.medianMillis();
                    seconds[w][i] = s.seconds();
                    damaged[w] = r.blocks();
                }
                out.printf("bench-recovery: run %d of %d done%n", i + 1, runs);
                out.flush();
            }
            out.println();
            out.printf("%d MiB file, %s blocks, every %dth block damaged on its way from a relay (%d per transfer), "
                    + "AES-256-GCM, FIVER, %d relays, %d interleaved runs, medians:%n", sizeMb, blockSize, every, damaged[0],
                    relayCount, runs);
            out.println();
            out.printf("| %-44s | %18s | %12s |%n", "damaged blocks recovered from", "recovery time (ms)", "transfer (s)");
            out.printf("|%s|%s|%s|%n", "-".repeat(46), "-".repeat(20), "-".repeat(14));
            String[] names = {"the relay that holds them (default)", "the origin (relay recovery off)"};
            for (int w = 0; w < 2; w++) {
                out.printf(Locale.ROOT, "| %-44s | %18.1f | %12.2f |%n", names[w], BenchStripeCommand.median(recovery[w]),
                        BenchStripeCommand.median(seconds[w]));
            }
            out.println();
            out.printf(Locale.ROOT, "Recovery time from relay caches: %.0f %% of the origin's (acceptance target: <= 40 %%; "
                            + "poster 003: about 50 %%).%n",
                    100 * BenchStripeCommand.median(recovery[0]) / BenchStripeCommand.median(recovery[1]));
            out.println("Recovery time: from the moment the client finds a block damaged to its good copy verified on disk.");
            out.println("From the origin, damaged blocks are fetched with FGET once the server has placed every block (its 226).");
            out.println();
            out.printf("Machine: %d cores (%s), Java %s; load average before %s, after %s%n",
                    Runtime.getRuntime().availableProcessors(), BenchStripeCommand.cpuModel(), System.getProperty("java.version"),
                    before, BenchStripeCommand.loadAverage());
            out.flush();
            return ExitCodes.OK;
        }
    }

    private CollectSummary get(LoopbackSetup setup, Path dest, boolean relayRecovery) throws Exception {
        Files.deleteIfExists(dest);
        CollectOptions o = new CollectOptions("127.0.0.1", setup.port(), "demo", setup.password().toCharArray(),
                "demo@127.0.0.1:" + setup.port(), "/" + FILE, dest,
                PinnedTrustManager.of(Set.of(Fingerprint.parse(setup.fingerprint()))),
                FspOptions.NONE.withText(FspOption.BLOCK_SIZE, blockSize), false, 4, VerificationMode.FIVER, Duration.ofSeconds(30),
                Duration.ofSeconds(10)).withRelayRecovery(relayRecovery);
        CollectSummary s = new Collector(o).run();
        if (!s.complete() || !s.verified()) {
            throw new IllegalStateException("fsp get incomplete: " + s.toText());
        }
        return s;
    }
}
