package io.fsp.cli;

import io.fsp.client.control.FspUrl;
import io.fsp.client.evacuate.DryRunReport;
import io.fsp.client.evacuate.Evacuation;
import io.fsp.client.evacuate.EvacuationReport;
import io.fsp.config.ConfigException;
import io.fsp.config.Durations;
import io.fsp.crypto.RecipientKey;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.tls.Fingerprint;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fsp evacuate fsp://USER@HOST:PORT/PATH --manifest FILE --recipient KEY --trust FP}: has the server stripe a
 * file or tree to its relays, which keep it for the retention, and writes what a collector needs into a manifest
 * sealed to the safe site (docs/protocol.md §5).
 */
@Command(name = "evacuate", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Evacuates a file or a directory: the server stripes it to its relays, which keep it for the"
                + " retention (also across restarts), and the manifest - keys, tokens, relays, files, block digests and"
                + " placements, sealed to the safe site's public key - lets 'fsp collect' fetch it later with the origin"
                + " gone. Nothing is fetched here. The manifest is rewritten every 5 s while the server stripes.",
                "--trust and --password-file may come from the client configuration (--config FILE, $FSP_CONFIG or"
                        + " ~/.config/fsp/client.conf, see conf/client.conf.example); options given here override it.",
                PasswordOption.HELP},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.EVACUATED_HELP, ExitCodes.FAILURE_HELP,
                ExitCodes.USAGE_HELP, ExitCodes.INTERNAL_HELP, ExitCodes.PARTIAL_EVACUATE_HELP})
public final class EvacuateCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "fsp://USER@HOST:PORT/PATH", description = "What to evacuate.")
    String url;

    @Option(names = "--manifest", paramLabel = "FILE", description = "Where to write the sealed manifest (needed unless --dry-run).")
    Path manifest;

    @Option(names = "--recipient", paramLabel = "PUBLIC-KEY-FILE",
            description = "The safe site's public key ('fsp keygen' printed it; needed unless --dry-run).")
    Path recipient;

    @Option(names = "--trust", paramLabel = "FINGERPRINT",
            description = "The server's certificate fingerprint (as fsp-server prints it); the manifest records it.")
    String trust;

    @Mixin
    LoginOptions login;

    @Mixin
    OutputOption output;

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "2",
            description = "Store each block on N relays, 1..3 (default: ${DEFAULT-VALUE}), so that one lost relay loses nothing.")
    int replicas;

    @Option(names = "--priority", paramLabel = "FILE",
            description = "Names (relative to PATH, one a line; a directory names every file under it) to send first, in this order.")
    Path priority;

    @Option(names = "--deadline", paramLabel = "DURATION",
            description = "Stop after this long (e.g. 20m): the manifest then holds what is out, and the report says which files.")
    String deadline;

    @Option(names = "--retain", paramLabel = "DURATION", defaultValue = "7d",
            description = "How long the relays keep the blocks for the collector (default: ${DEFAULT-VALUE}; the server's"
                    + " max-retain caps it, and its retain-user must name the user with at least this long).")
    String retain;

    @Mixin
    BlockSizeOption blockSize;

    @Option(names = "--compression", paramLabel = "off|zstd|LEVEL",
            description = "Compress blocks with zstd before they are sealed (server default: off): less to move, more CPU.")
    String compression;

    @Option(names = "--dry-run", description = "Measure how fast the server places this data set for a few seconds, retaining"
            + " nothing, and say whether --deadline can be met.")
    boolean dryRun;

    @Option(names = "--force", description = "Evacuate even if the --manifest FILE exists: the earlier manifest is kept"
            + " as FILE.1 (or the next free number), so that its evacuation can still be collected or released.")
    boolean force;

    @Override
    public Integer call() throws Exception {
        return output.run(spec, this::evacuate);
    }

    private int evacuate(PrintWriter out, PrintWriter err) throws Exception {
        Evacuation.Options options;
        try {
            options = options();
        } catch (IllegalArgumentException | ConfigException e) {
            err.println("fsp evacuate: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        if (!dryRun && Files.exists(options.manifest(), LinkOption.NOFOLLOW_LINKS)) {
            if (!force) {
                err.println("fsp evacuate: --manifest " + options.manifest() + " exists: it may be the only key to an"
                        + " earlier evacuation's blocks, kept on the relays; nothing was sent (expected: a new --manifest"
                        + " name, or --force to keep the earlier one as " + options.manifest() + ".1 and go on)");
                return ExitCodes.USAGE;
            }
            Path kept = keep(options.manifest());
            err.println("fsp evacuate: kept the earlier manifest as " + kept + " (collect or release its evacuation"
                    + " with it)");
        }
        Evacuation evacuation = new Evacuation(options);
        if (dryRun) {
            DryRunReport report;
            try {
                report = evacuation.probe();
            } catch (IOException e) {
                err.println("fsp evacuate --dry-run: " + e.getMessage());
                return ExitCodes.FAILURE;
            }
            out.println(output.json ? report.toJson() : report.toText());
            if (!report.canBeMet()) {
                err.println("fsp evacuate --dry-run: the evacuation as asked CANNOT be met: " + report.reasons().get(0)
                        + (report.reasons().size() > 1 ? " (and " + (report.reasons().size() - 1) + " more reasons above)" : ""));
                return ExitCodes.PARTIAL;
            }
            return ExitCodes.OK;
        }
        EvacuationReport report;
        Invocation.current().watch().progress(evacuation::bytesPlaced, evacuation::totalBytes);
        ProgressView progress = output.progress() ? new ProgressView(evacuation::bytesPlaced,
                evacuation::totalBytes, evacuation::bytesPlacedByRelay, out) : null;
        try {
            report = evacuation.run();
        } catch (IOException e) {
            err.println("fsp evacuate: " + e.getMessage() + "; nothing was evacuated");
            return ExitCodes.FAILURE;
        } finally {
            if (progress != null) {
                progress.close();
            }
        }
        out.println(output.json ? report.toJson() : report.toText());
        if (report.error() != null) {
            err.println("fsp evacuate: " + report.error() + "; the manifest holds what was placed before");
            return ExitCodes.FAILURE;
        }
        List<String> reasons = report.relays().reasons();
        String why = reasons.isEmpty() ? "" : "; " + String.join("; ", reasons);
        if (!report.isComplete()) {
            err.println("fsp evacuate: " + (report.deadlineReached() ? "the deadline came" : "some blocks found no relay")
                    + ": only the files listed as out are evacuated" + why);
            return ExitCodes.PARTIAL;
        }
        if (!report.hasEveryCopy()) {
            List<EvacuationReport.FileOut> short_ = report.shortOfCopies();
            err.println("fsp evacuate: every file is out, but " + short_.size() + " files ("
                    + short_.stream().mapToLong(EvacuationReport.FileOut::shortBlocks).sum() + " blocks) have fewer than "
                    + replicas + " copies (the report names them)" + why);
            return ExitCodes.PARTIAL;
        }
        return ExitCodes.OK;
    }

    /** Moves {@code file} to FILE.N, the first N free, and returns that path. */
    static Path keep(Path file) throws IOException {
        for (int n = 1; ; n++) {
            Path to = file.resolveSibling(file.getFileName() + "." + n);
            if (!Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
                return Files.move(file, to); // no REPLACE_EXISTING: a file made meanwhile is not overwritten
            }
        }
    }

    private Evacuation.Options options() throws IOException {
        FspUrl origin = FspUrl.parse(url);
        if (!dryRun && (manifest == null || recipient == null)) {
            throw new IllegalArgumentException("--manifest FILE and --recipient PUBLIC-KEY-FILE are needed (expected: both,"
                    + " unless --dry-run)");
        }
        FspFlags.with(FspOptions.NONE, FspOption.REPLICAS, replicas);
        ClientSettings settings = login.settings(spec.commandLine().getParseResult());
        Fingerprint server = settings.trust().orElseThrow(() -> new IllegalArgumentException("--trust FINGERPRINT (as"
                + " fsp-server prints it) is needed (or trust = FINGERPRINT in the client configuration)"));
        Duration retainFor = duration("--retain", retain);
        FspFlags.with(FspOptions.NONE, FspOption.RETAIN, retainFor);
        Duration stopAfter = deadline == null ? null : duration("--deadline", deadline);
        List<String> first = priorities();
        RecipientKey key = recipient == null ? null : RecipientKey.readPublic(recipient);
        FspOptions fsp = FspFlags.withText(FspFlags.withText(FspOptions.NONE, FspOption.BLOCK_SIZE, blockSize.value),
                FspOption.COMPRESSION, compression);
        return new Evacuation.Options(origin, LoginOptions.password(settings, origin.user(), origin.host()), server, manifest, key, replicas, retain, retainFor, first,
                stopAfter, fsp, Duration.ofSeconds(10));
    }

    /** Digits and a unit, {@code s}, {@code m}, {@code h} or {@code d}, as FSPO retain takes them; not zero. */
    static Duration duration(String option, String text) {
        try {
            if (!text.startsWith("0")) { // neither zero nor a leading zero
                return Durations.parseWhole(text);
            }
        } catch (IllegalArgumentException e) {
            // the message below names the option
        }
        throw new IllegalArgumentException(option + ": '" + text + "' (expected: digits and s, m, h or d, e.g. 20m or 7d)");
    }

    /** The --priority file's names: one a line, blank lines and lines starting with # left out. */
    private List<String> priorities() throws IOException {
        if (priority == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        int n = 0;
        List<String> lines;
        try {
            lines = Files.readAllLines(priority, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--priority " + priority + ": no such file (expected: a file of names"
                    + " relative to PATH, one a line; leave out --priority to send in the server's order)", e);
        } catch (IOException e) {
            throw new IllegalArgumentException("--priority " + priority + ": cannot be read: " + e
                    + " (expected: a readable UTF-8 file of names, one a line)", e);
        }
        for (String line : lines) {
            n++;
            String name = line.strip();
            if (name.isEmpty() || name.startsWith("#")) {
                continue;
            }
            while (name.endsWith("/") && name.length() > 1) {
                name = name.substring(0, name.length() - 1);
            }
            try {
                ExtensionCodec.formatPriority(name); // the rules FPRI names follow
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--priority " + priority + ": line " + n + ": " + e.getMessage(), e);
            }
            names.add(name);
        }
        if (names.size() > 10_000) {
            throw new IllegalArgumentException("--priority " + priority + ": " + names.size() + " names (expected: at most 10000)");
        }
        return names;
    }
}
