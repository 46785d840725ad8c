package io.fsp.cli;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.EvacuationInventory;
import io.fsp.client.collect.EvacuationRelays;
import io.fsp.client.collect.EvacuationRelays.Answer;
import io.fsp.client.evacuate.EvacuationManifest;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fsp release MANIFEST --identity FILE}: frees every block of an evacuation on every relay that holds it (a
 * practice or abandoned evacuation, or what a collection could not free), authorised by the manifest's token.
 */
@Command(name = "release", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Frees every block of the evacuation a manifest names on every relay it was placed on (CONFIRM"
                + " with the manifest's token): the data is gone from the relays for good. Only the holder of the"
                + " safe site's identity can open the manifest, and so release it. A relay down now keeps its blocks"
                + " until this command runs again once it is back (or, with --wait, asks it again until it is), or"
                + " until the retention ends."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.RELEASED_HELP, ExitCodes.FAILURE_HELP,
                ExitCodes.USAGE_HELP, ExitCodes.INTERNAL_HELP, ExitCodes.PARTIAL_RELEASE_HELP})
public final class ReleaseCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "MANIFEST", description = "The sealed evacuation manifest.")
    Path manifestFile;

    @Option(names = "--identity", required = true, paramLabel = "FILE",
            description = "The safe site's identity ('fsp keygen' wrote it): the manifest is sealed to it.")
    Path identity;

    @Option(names = "--relay-timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "How long a relay may take to connect and then to answer, in seconds (default: 10).")
    int relayTimeout;

    @Option(names = "--wait", paramLabel = "DURATION",
            description = "When a relay cannot be reached, ask it again every few seconds for up to DURATION (digits"
                    + " and s, m, h or d, e.g. 30m or 7d; never past the end of the retention): a relay that comes"
                    + " back frees its blocks then. Default: ask once.")
    String wait;

    @Mixin
    OutputOption output;

    /** How often --wait asks the relays that did not answer. */
    private static final Duration RETRY = Duration.ofSeconds(3);

    @Override
    public Integer call() throws Exception {
        return output.run(spec, this::release);
    }

    private int release(PrintWriter out, PrintWriter err) {
        if (relayTimeout < 1) {
            err.println("fsp release: --relay-timeout " + relayTimeout + " (expected: 1 or more seconds)");
            return ExitCodes.USAGE;
        }
        Duration waitFor;
        try {
            waitFor = wait == null ? Duration.ZERO : EvacuateCommand.duration("--wait", wait);
        } catch (IllegalArgumentException e) {
            err.println("fsp release: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        EvacuationManifest manifest = EvacuationView.open("fsp release", manifestFile, identity, err);
        if (manifest == null) {
            return ExitCodes.FAILURE;
        }
        if (manifest.announcements().isEmpty()) {
            out.println("fsp release: " + manifestFile + " holds no transfer: nothing was placed, nothing to free");
            return ExitCodes.OK;
        }
        EvacuationInventory inventory = new EvacuationInventory(manifest.announcements());
        Map<Integer, Answer> answers = new LinkedHashMap<>();
        try (EvacuationRelays relays = new EvacuationRelays(Duration.ofSeconds(relayTimeout))) {
            answers.putAll(relays.release(inventory));
            Instant until = Instant.now().plus(waitFor);
            if (until.isAfter(manifest.retainUntil())) {
                until = manifest.retainUntil(); // by then every relay has dropped it anyway
            }
            askAgain(relays, inventory, answers, until, err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("fsp release: interrupted while waiting for relays");
            return ExitCodes.PARTIAL;
        }
        List<Answer> down = answers.values().stream().filter(a -> !a.answered()).toList();
        if (output.json) {
            StringBuilder rs = new StringBuilder();
            for (Answer a : answers.values()) {
                rs.append(rs.length() > 0 ? "," : "").append("{\"relay\":").append(CollectSummary.quote(a.relay().address()))
                        .append(",\"placed\":").append(a.relay().seqs().size()).append(",\"freed\":")
                        .append(a.answered() ? a.freed() : "null").append(",\"error\":")
                        .append(CollectSummary.quote(a.error())).append('}');
            }
            out.println("{\"transfer_id\":" + CollectSummary.quote(inventory.transferId().toString())
                    + ",\"released\":" + down.isEmpty() + ",\"retain_until\":"
                    + CollectSummary.quote(manifest.retainUntil().toString()) + ",\"relays\":[" + rs + "]}");
        } else {
            out.println("release of evacuation " + inventory.transferId() + " of " + manifest.origin());
            for (Answer a : answers.values()) {
                int placed = a.relay().seqs().size();
                out.println("  relay " + a.relay().address() + ": " + (!a.answered()
                        ? "UNREACHABLE (" + a.error() + "): keeps its " + placed + " blocks"
                        : a.freed() == 0 ? "already gone (held none of its " + placed + " blocks)"
                        : "freed " + a.freed() + " blocks" + (a.freed() < placed ? ", " + (placed - a.freed())
                        + " already gone" : "")));
            }
        }
        if (!down.isEmpty()) {
            err.println("fsp release: " + down.size() + (down.size() == 1 ? " relay" : " relays") + " unreachable ("
                    + String.join(", ", down.stream()
                    .map(a -> a.relay().address()).toList()) + "): their blocks are freed when 'fsp release "
                    + manifestFile + "' runs again once they are back (with --wait DURATION, as soon as they are),"
                    + " or when the retention ends at "
                    + manifest.retainUntil());
            return ExitCodes.PARTIAL;
        }
        return ExitCodes.OK;
    }

    /** --wait: asks the relays that did not answer again, every {@link #RETRY}, until each has or {@code until}. */
    private static void askAgain(EvacuationRelays relays, EvacuationInventory inventory, Map<Integer, Answer> answers,
                                 Instant until, PrintWriter err) throws InterruptedException {
        Set<Integer> down = unanswered(answers);
        if (down.isEmpty() || !Instant.now().isBefore(until)) {
            return;
        }
        err.println("fsp release: waiting until " + until + " for " + down.size()
                + (down.size() == 1 ? " relay" : " relays") + " to come back: "
                + String.join(", ", down.stream().map(i -> answers.get(i).relay().address()).toList()));
        err.flush();
        while (!down.isEmpty() && Instant.now().isBefore(until)) {
            Thread.sleep(Math.min(RETRY.toMillis(), Math.max(1, Duration.between(Instant.now(), until).toMillis())));
            relays.release(inventory, down).forEach((i, a) -> {
                if (a.answered()) {
                    err.println("fsp release: relay " + a.relay().address() + " is back");
                    err.flush();
                    answers.put(i, a);
                }
            });
            down = unanswered(answers);
        }
    }

    private static Set<Integer> unanswered(Map<Integer, Answer> answers) {
        Set<Integer> down = new TreeSet<>();
        answers.forEach((i, a) -> {
            if (!a.answered()) {
                down.add(i);
            }
        });
        return down;
    }
}
