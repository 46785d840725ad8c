package io.fsp.cli;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.collect.EvacuationInventory;
import io.fsp.client.collect.EvacuationRelays;
import io.fsp.client.collect.RecordedTransfer;
import io.fsp.client.control.FspUrl;
import io.fsp.client.evacuate.Bag;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.client.evacuate.EvacuationManifest.UntrustedOriginException;
import io.fsp.client.verify.VerificationMode;
import io.fsp.config.ConfigException;
import io.fsp.extension.Announcement;
import io.fsp.tls.Fingerprint;
import io.fsp.token.TransferId;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fsp collect MANIFEST -o DEST --identity FILE}: collects an evacuated data set from the relays an evacuation
 * manifest names, with the origin gone, into a BagIt bag (docs/protocol.md §5).
 */
@Command(name = "collect", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Collects what 'fsp evacuate' placed on relays, from the relays alone (the origin is never asked):"
                + " each block verified against the manifest's digest once it is on disk, resumed after an interruption"
                + " by running the same command again; DEST becomes a BagIt bag (RFC 8493) with the files under data/."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.COLLECTED_HELP, ExitCodes.FAILURE_HELP,
                ExitCodes.USAGE_HELP, ExitCodes.VERIFICATION_FAILED_HELP, ExitCodes.INTERNAL_HELP,
                ExitCodes.PARTIAL_COLLECT_HELP, ExitCodes.UNTRUSTED_ORIGIN_HELP})
public final class CollectCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "MANIFEST", description = "The sealed evacuation manifest.")
    Path manifestFile;

    @Option(names = {"-o", "--output"}, paramLabel = "DEST",
            description = "The bag's directory (created if missing): the files go under DEST/data/. Needed but with"
                    + " --list or --check.")
    Path destination;

    @Option(names = "--list", description = "Only list what the manifest holds: files (size, blocks, copies), state,"
            + " retention end, relays (blocks each). No relay is contacted.")
    boolean list;

    @Option(names = "--check", description = "Only ask every relay which of its blocks it still holds, collecting and"
            + " freeing nothing: exit 0 when every file can still be collected whole, 5 when not (the files at risk,"
            + " the copies still held and the relays unreachable are named).")
    boolean check;

    @Option(names = "--identity", required = true, paramLabel = "FILE",
            description = "The safe site's identity ('fsp keygen' wrote it; readable by its owner only).")
    Path identity;

    @Option(names = "--trust-origin", paramLabel = "FINGERPRINT",
            description = "The origin server's certificate fingerprint, learnt ahead of time ('fsp-server fingerprint'"
                    + " on the origin): the manifest must hold that certificate and its signature over every"
                    + " announcement, else nothing is collected (anyone who has the public key can seal a manifest).")
    String trustOrigin;

    @Option(names = "--expect-origin", paramLabel = "fsp://USER@HOST:PORT/PATH",
            description = "The evacuation expected: the URL given to 'fsp evacuate'. A manifest of another account,"
                    + " server or path, or one whose origin did not sign when it was created (an older origin's,"
                    + " manifest version 2), is refused (exit 6), nothing written. Needs --trust-origin.")
    String expectOrigin;

    @Option(names = "--not-before", paramLabel = "TIME",
            description = "With --expect-origin: refuse an evacuation the origin created before TIME (ISO 8601,"
                    + " e.g. 2026-11-24T08:00:00Z): an older manifest of the same path, replayed.")
    String notBefore;

    @Option(names = "--transfer", paramLabel = "ID",
            description = "With --expect-origin: refuse any evacuation but transfer ID (16 hex digits, as 'fsp"
                    + " evacuate' reports it).")
    String transfer;

    @Option(names = "--no-origin-check",
            description = "Collect without checking who announced the manifest's contents: only for a manifest whose"
                    + " sealer you know by other means. Prints a warning.")
    boolean noOriginCheck;

    // Options that are keys of ClientSettings are read through ClientConfigOption, over the client's configuration file.
    @Mixin
    FetchOptions fetch;

    @Option(names = "--verify", paramLabel = "fiver|riva",
            description = "fiver: hash the buffers being written (default); riva: re-read from disk.")
    String verify;

    @Mixin
    ClientConfigOption configuration;

    @Mixin
    OutputOption output;

    @Override
    public Integer call() throws Exception {
        return output.run(spec, this::collect);
    }

    private int collect(PrintWriter out, PrintWriter err) throws Exception {
        ClientSettings settings;
        Fingerprint trusted;
        EvacuationManifest.Expected expected;
        try {
            settings = configuration.settings(spec.commandLine().getParseResult());
            if (settings.verify() == VerificationMode.OFF) {
                throw new IllegalArgumentException("verify: off (expected: fiver or riva: a collection is verified)");
            }
            trusted = trustOrigin == null ? null : Fingerprint.parse(trustOrigin);
            // --list only reads the manifest: the origin is checked if given, not required
            if ((trusted == null) == !noOriginCheck && !(list && trusted == null)) {
                throw new IllegalArgumentException(trusted == null ? "--trust-origin FINGERPRINT is needed (the origin"
                        + " server's, as 'fsp-server fingerprint' prints it; or --no-origin-check to collect what anyone"
                        + " who has the public key may have sealed)" : "--trust-origin and --no-origin-check: one of them"
                        + " (expected: not both)");
            }
            expected = expected(trusted);
            if (list && check || (list || check) == (destination != null)) {
                throw new IllegalArgumentException(list && check ? "--list and --check: one of them (expected: not both)"
                        : destination == null ? "-o DEST is needed (the bag's directory), or --list or --check"
                        : "-o with --list or --check (expected: these collect nothing)");
            }
        } catch (IllegalArgumentException | ConfigException e) {
            err.println("fsp collect: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        EvacuationManifest manifest = EvacuationView.open("fsp collect", manifestFile, identity, err);
        if (manifest == null) {
            return ExitCodes.FAILURE;
        }
        if (trusted != null) {
            try {
                manifest.checkOrigin(trusted);
            } catch (UntrustedOriginException e) {
                // before anything is made: no bag, no journal, no temporary file
                err.println("fsp collect: " + manifestFile + ": " + e.getMessage() + " (--trust-origin); nothing written");
                return ExitCodes.UNTRUSTED_ORIGIN;
            }
            if (expected != null) {
                try {
                    manifest.checkExpected(expected);
                } catch (UntrustedOriginException e) {
                    err.println("fsp collect: " + manifestFile + ": " + e.getMessage() + " (--expect-origin); nothing"
                            + " written");
                    return ExitCodes.UNTRUSTED_ORIGIN;
                }
            }
        } else if (!list) {
            // even with --quiet: whoever reads the log must see that nothing vouches for this bag
            err.println("fsp collect: WARNING: --no-origin-check: origin " + manifest.origin() + ", certificate "
                    + manifest.originFingerprint() + " NOT CHECKED: anyone who has the safe site's public key can have"
                    + " sealed this manifest, its files are verified only against what the sealer wrote");
            err.flush();
        }
        if (manifest.announcements().isEmpty()) {
            err.println("fsp collect: " + manifestFile + " (state " + manifest.state().label() + ") holds no transfer:"
                    + " nothing was announced before it was written");
            return ExitCodes.PARTIAL;
        }
        if (list || check) {
            return inspect(manifest, settings, out);
        }
        if (Files.exists(destination.resolve(Bag.TAG_MANIFEST))) {
            // its blocks were confirmed and freed: collecting again could only fail
            err.println("fsp collect: " + destination + " is a bag already (" + Bag.TAG_MANIFEST + "): this manifest was"
                    + " collected into it; check it with any BagIt tool, or choose another -o");
            return ExitCodes.FAILURE;
        }
        RecordedTransfer recorded = new RecordedTransfer(manifest.announcements());
        Files.createDirectories(destination.resolve(Bag.PAYLOAD));
        Collector collector = new Collector(CollectOptions.withoutOrigin(manifest.origin().server(), manifest.origin().path(),
                payloadDestination(recorded, manifest), settings.streams(), settings.verify(), settings.relayTimeout(),
                Duration.ofSeconds(10)), recorded);
        collector.countFrom(Invocation.current().startedMillis());
        collector.heldBy(Invocation.current().pid());
        Invocation.current().watch().progress(collector::bytesDone, collector::totalBytes);
        Invocation.current().watch().blocks(collector::blocksDone, collector::blocksRecovered);
        ProgressView progress = output.progress() ? new ProgressView(collector, out) : null;
        CollectSummary summary;
        try {
            summary = collector.run();
        } catch (IOException e) {
            err.println("fsp collect: " + e.getMessage());
            String hint = Rerun.hint(e);
            if (hint != null) {
                err.println("fsp collect: nothing reported complete; " + hint + " (" + collector.journalPath() + ")");
            }
            return ExitCodes.FAILURE;
        } finally {
            if (progress != null) {
                progress.close();
            }
        }
        unreleased(collector, manifest, err);
        List<String> missing = new ArrayList<>(recorded.missingFiles());
        if (recorded.unrecordedFiles() > 0) {
            missing.add("(" + recorded.unrecordedFiles() + " more files the manifest does not name: it ends before them)");
        }
        if (!summary.complete()) {
            List<String> unfinished = collector.unfinishedFiles();
            out.println(output.json ? summary.toJson(",\"unverified_files\":" + CollectSummary.quote(unfinished)
                    + ",\"missing_files\":" + CollectSummary.quote(missing)) : summary.toText());
            err.println("fsp collect: " + summary.error() + "; files not verified: " + String.join(", ", unfinished)
                    + "; " + Rerun.HINT);
            return ExitCodes.VERIFICATION_FAILED;
        }
        String oxum = Bag.write(destination, payload(recorded), summary.transferId(), LocalDate.now(ZoneOffset.UTC));
        out.println(output.json ? summary.toJson(",\"bag\":" + CollectSummary.quote(destination.toString()) + ",\"payload_oxum\":"
                + CollectSummary.quote(oxum) + ",\"manifest_state\":" + CollectSummary.quote(manifest.state().label())
                + ",\"missing_files\":" + CollectSummary.quote(missing)) : summary.toText() + System.lineSeparator()
                + "  bag: " + destination + " (Payload-Oxum " + oxum + ")");
        if (!missing.isEmpty()) {
            err.println("fsp collect: the manifest (state " + manifest.state().label() + ") does not hold these files whole,"
                    + " they were not evacuated: " + String.join(", ", missing));
            return ExitCodes.PARTIAL;
        }
        return ExitCodes.OK;
    }

    /** --list or --check. */
    private int inspect(EvacuationManifest manifest, ClientSettings settings, PrintWriter out) {
        EvacuationInventory inventory = new EvacuationInventory(manifest.announcements());
        if (list) {
            EvacuationView.list(manifest, inventory, output.json, out);
            return ExitCodes.OK;
        }
        try (EvacuationRelays relays = new EvacuationRelays(settings.relayTimeout())) {
            return EvacuationView.check(manifest, inventory, relays.holds(inventory), output.json, out)
                    ? ExitCodes.OK : ExitCodes.PARTIAL;
        }
    }

    /** Relays that were down when told to free the blocks collected keep them: says so, and how to free them. */
    private void unreleased(Collector collector, EvacuationManifest manifest, PrintWriter err) {
        collector.unreleased().forEach((relay, blocks) -> err.println("fsp collect: relay " + relay + " could not be told"
                + " to free its " + blocks + " blocks collected (unreachable); 'fsp release " + manifestFile
                + " --identity " + identity + "' frees them once it is back (with --wait DURATION, as soon as it is"
                + " back); else they expire at " + manifest.retainUntil()));
    }

    /** What --expect-origin, --not-before and --transfer ask for, or null; they need the origin's signature. */
    private EvacuationManifest.Expected expected(Fingerprint trusted) {
        if (expectOrigin == null) {
            if (notBefore != null || transfer != null) {
                throw new IllegalArgumentException("--not-before and --transfer need --expect-origin URL (the evacuation"
                        + " expected: the URL given to 'fsp evacuate')");
            }
            return null;
        }
        if (trusted == null) {
            throw new IllegalArgumentException("--expect-origin needs --trust-origin FINGERPRINT: without the origin's"
                    + " signature nothing shows which evacuation a manifest is");
        }
        Instant after = null;
        if (notBefore != null) {
            try {
                after = OffsetDateTime.parse(notBefore).toInstant();
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("--not-before '" + notBefore + "' (expected: a time in ISO 8601 with"
                        + " its offset, e.g. 2026-11-24T08:00:00Z)");
            }
        }
        TransferId id = null;
        if (transfer != null) {
            try {
                id = TransferId.parse(transfer);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--transfer '" + transfer + "' (expected: 16 hex digits, as 'fsp"
                        + " evacuate' reports the transfer)");
            }
        }
        return new EvacuationManifest.Expected(FspUrl.parse(expectOrigin), after, id);
    }

    /** Where the collector puts the transfer: a directory's entries under DEST/data, a single file as DEST/data/NAME. */
    private Path payloadDestination(RecordedTransfer recorded, EvacuationManifest manifest) {
        Path data = destination.resolve(Bag.PAYLOAD);
        if (recorded.transfer().directory()) {
            return data;
        }
        List<Announcement.File> files = recorded.files();
        // the manifest checked the FILE name (one safe segment); without one, the transfer's id names the journal
        String name = files.isEmpty() ? recorded.transfer().id().toString() : files.get(0).name();
        return data.resolve(name);
    }

    /** The payload's names under data/: the files collected whole, in the manifest's order. */
    private static List<String> payload(RecordedTransfer recorded) {
        Set<Integer> whole = recorded.wholeFiles();
        return recorded.files().stream().filter(f -> whole.contains(f.index())).map(Announcement.File::name).toList();
    }
}
