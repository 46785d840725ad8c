package io.fsp.cli;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.control.FspUrl;
import io.fsp.config.ConfigException;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.extension.SelectionRequest;
import io.fsp.meridian.net.ProbeResponder;
import io.fsp.tls.PinnedTrustManager;
import java.io.PrintWriter;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fsp get fsp://USER@HOST:PORT/PATH -o DEST}: a striped, verified retrieve of a file or directory. The options
 * that are keys of {@link ClientSettings} ({@code --trust}, {@code --streams}, …) are read through
 * {@link ClientConfigOption}, over the client's configuration file; their fields here declare the syntax and help.
 */
@Command(name = "get", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Retrieves a file or a directory with the FSP extension: blocks come from the server's relays"
                + " (and, with --include-direct, from the server), each verified against the digest sent on the TLS"
                + " control channel before it counts.",
                "Defaults for the options below come from --config FILE, $FSP_CONFIG or ~/.config/fsp/client.conf if"
                        + " present (conf/client.conf.example); options given here override them.",
                PasswordOption.HELP},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK_HELP, ExitCodes.FAILURE_HELP,
                ExitCodes.USAGE_HELP, ExitCodes.VERIFICATION_FAILED_HELP, ExitCodes.INTERNAL_HELP})
public final class GetCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "fsp://USER@HOST:PORT/PATH", description = "What to retrieve.")
    String url;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "DEST",
            description = "Where to put it: the file's new name, or a directory to put the file in under its own"
                    + " name; for a tree, the directory that receives it.")
    Path destination;

    @Mixin
    LoginOptions login;

    @Mixin
    OutputOption output;

    @Option(names = "--trust", paramLabel = "FINGERPRINT", description = "Accept only the server certificate with this SHA-256 fingerprint (as fsp-server prints it).")
    String trust;

    @Option(names = "--insecure", description = "Accept any server certificate (testing only: a man in the middle could read the key).")
    boolean insecure;

    @Mixin
    BlockSizeOption blockSize;

    @Option(names = "--compression", paramLabel = "off|zstd|LEVEL", description = "Compress blocks with zstd (server default: off).")
    String compression;

    @Option(names = "--cipher", paramLabel = "CIPHER", description = "aes-256-gcm (default), aes-128-gcm or none.")
    String cipher;

    @Option(names = "--checksum", paramLabel = "ALG", description = "Wire checksum per block: crc32c (default), adler32, crc32, md5, sha1, sha256, blake3.")
    String checksum;

    @Option(names = "--digest", paramLabel = "ALG", description = "End-to-end digest of each block's plaintext (default: sha256).")
    String digest;

    @Option(names = "--strategy", paramLabel = "fcfs|cyclic|partitioned", description = "How the server spreads blocks over relays (default: fcfs).")
    String strategy;

    @Option(names = "--replicas", paramLabel = "N", description = "Store each block on N relays (1..3, default: 1), so that "
            + "a relay that fails or goes away costs no fetch from the origin.")
    String replicas;

    @Option(names = "--include-direct", negatable = true,
            description = "Also take blocks straight from the server on a data connection (default: off).")
    Boolean includeDirect;

    @Option(names = "--no-overlap", description = "Fetch relay blocks only after the server has placed every block "
            + "(default: while striping goes on).")
    boolean noOverlap;

    @Option(names = "--page-cache-writes", negatable = true, description = "Write every block through the page cache"
            + " (default: whole aligned blocks with O_DIRECT, which spares the CPU a copy into the cache and the cache's"
            + " upkeep).")
    Boolean pageCacheWrites;

    @Option(names = "--relay-blocks-over-tls", negatable = true, description = "Fetch blocks from relays over TLS"
            + " too, so that frame headers (transfer id, block numbers, sizes) are hidden (default: over a clear link"
            + " beside the TLS connection; the blocks are sealed either way).")
    Boolean relayBlocksOverTls;

    @Mixin
    FetchOptions fetch;

    @Option(names = "--verify", paramLabel = "fiver|riva|off",
            description = "fiver: hash the buffers being written (default); riva: re-read from disk; off: no verification.")
    String verify;

    @Option(names = "--progress-json", description = "Print progress for scripts on standard output: each second one"
            + " line {\"event\":\"progress\",\"seconds\":S,\"bytes_done\":N,\"bytes_total\":N,\"bytes_per_s\":R}"
            + " (the last second's rate), before the summary; no status line.")
    boolean progressJson;

    @Option(names = "--relays", paramLabel = "N",
            description = "Ask the server for N relays chosen by RTT over the Meridian overlay (with --near-sender and"
                    + " --near-client); the client answers the overlay's probes meanwhile.")
    Integer relays;

    @Option(names = "--near-sender", paramLabel = "MS", description = "Relays within MS milliseconds of the server.")
    String nearSender;

    @Option(names = "--near-client", paramLabel = "MS", description = "Relays within MS milliseconds of this client.")
    String nearClient;

    @Option(names = "--meridian-entry", paramLabel = "IP:PORT",
            description = "Meridian node the server asks through: the server's meridian-entry (the default) or one of"
                    + " its relays' addresses; the server refuses any other.")
    String meridianEntry;

    /** Answers the overlay's RTT probes while the transfer is being set up (with --relays). */
    private ProbeResponder probe;

    @Override
    public Integer call() throws Exception {
        try {
            return output.run(spec, this::get);
        } finally {
            if (probe != null) {
                probe.close();
            }
        }
    }

    private int get(PrintWriter out, PrintWriter err) throws Exception {
        CollectOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException | ConfigException e) {
            err.println("fsp get: " + e.getMessage());
            err.flush();
            return ExitCodes.USAGE;
        }
        Collector collector = new Collector(options);
        collector.countFrom(Invocation.current().startedMillis());
        collector.heldBy(Invocation.current().pid());
        Invocation.current().watch().progress(collector::bytesDone, collector::totalBytes);
        Invocation.current().watch().blocks(collector::blocksDone, collector::blocksRecovered);
        CollectSummary summary;
        ProgressView progress = progressJson ? new ProgressView(collector, out, true)
                : output.progress() ? new ProgressView(collector, out) : null;
        // Ctrl-C or a TERM signal ends the process in the middle: say that the verified blocks stay for a rerun.
        Thread interrupted = new Thread(() -> {
            err.println("fsp get: interrupted; " + Rerun.HINT + " (" + collector.journalPath() + ")");
            err.flush();
        }, "fsp-interrupted");
        Runtime.getRuntime().addShutdownHook(interrupted);
        try {
            summary = collector.run();
        } catch (InterruptedException e) {
            // cancelled in the agent (its launcher had SIGINT or SIGTERM): the same words as a process stopped so
            if (progress != null) {
                progress.close();
            }
            interrupted.run();
            return ExitCodes.INTERRUPTED;
        } catch (io.fsp.client.collect.NotEnoughSpaceException e) {
            if (progress != null) {
                progress.close();
            }
            err.println("fsp get: " + e.getMessage() + "; free space there, or choose another -o, then run it again");
            err.flush();
            return ExitCodes.FAILURE;
        } catch (java.io.IOException e) {
            if (progress != null) {
                progress.close();
            }
            err.println("fsp get: " + e.getMessage());
            String hint = Rerun.hint(e);
            if (hint != null) {
                err.println("fsp get: nothing reported complete; " + hint + " (" + collector.journalPath() + ")");
            }
            err.flush();
            return ExitCodes.FAILURE;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interrupted);
            } catch (IllegalStateException e) {
                // already shutting down: the hook says so
            }
        }
        if (progress != null) {
            progress.close();
        }
        out.println(output.json ? summary.toJson() : summary.toText());
        out.flush();
        if (!summary.complete()) {
            err.println("fsp get: " + summary.error() + "; " + Rerun.HINT);
            err.flush();
            return ExitCodes.VERIFICATION_FAILED;
        }
        return ExitCodes.OK;
    }

    /** What to collect with: the URL, and the settings over the configuration file over the defaults. */
    CollectOptions options() throws java.io.IOException, InterruptedException {
        FspUrl u = FspUrl.parse(url);
        ClientSettings settings = login.settings(spec.commandLine().getParseResult());
        if (settings.trust().isEmpty() && !insecure) {
            throw new IllegalArgumentException("--trust FINGERPRINT (as fsp-server prints it) or --insecure is needed"
                    + " (or trust = FINGERPRINT in the client configuration, see conf/client.conf.example)");
        }
        PinnedTrustManager tm = insecure ? PinnedTrustManager.any() : PinnedTrustManager.of(Set.of(settings.trust().get()));
        char[] password = LoginOptions.password(settings, u.user(), u.host());
        FspOptions fsp = settings.fspOptions().with(selection(u.host(), u.port(), settings));
        return new CollectOptions(u.host(), u.port(), u.user(), password, u.server(), u.path(),
                destination.toAbsolutePath().normalize(), tm, fsp,
                settings.includeDirect(), settings.streams(), settings.verify(), settings.relayTimeout(),
                Duration.ofSeconds(10), !noOverlap, true, !settings.pageCacheWrites(), settings.relayBlocksOverTls());
    }

    /**
     * With --relays: starts a probe responder on the address this host uses towards the server (the server
     * takes the IP of the control connection and only the port from here) and asks for relays by RTT.
     */
    private FspOptions selection(String host, int port, ClientSettings settings)
            throws java.io.IOException, InterruptedException {
        if (relays == null && nearSender == null && nearClient == null && !matched("--meridian-entry")) {
            return FspOptions.NONE;
        }
        if (relays == null || nearSender == null || nearClient == null) {
            throw new IllegalArgumentException("--relays, --near-sender and --near-client go together (expected: all three)");
        }
        if (relays < 1 || relays > SelectionRequest.MAX_RELAYS) {
            throw new IllegalArgumentException("--relays: " + relays + " (expected: 1.." + SelectionRequest.MAX_RELAYS + ")");
        }
        FspOptions query = FspOptions.NONE.withText(FspOption.NEAR_SENDER, nearSender)
                .withText(FspOption.NEAR_CLIENT, nearClient).with(FspOption.RELAYS, relays);
        if (settings.meridianEntry().isPresent()) {
            query = query.withText(FspOption.MERIDIAN_ENTRY, settings.meridianEntry().get().toString());
        }
        InetAddress local;
        try (DatagramSocket route = new DatagramSocket()) {
            route.connect(InetAddress.getByName(host), port); // picks the source address; sends nothing
            local = route.getLocalAddress();
        }
        probe = ProbeResponder.start(new InetSocketAddress(local, 0));
        return query.with(FspOption.CLIENT_PROBE, probe.address().getPort());
    }

    private boolean matched(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }
}
