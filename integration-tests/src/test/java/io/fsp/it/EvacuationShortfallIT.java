package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.crypto.RecipientKey;
import io.fsp.extension.Announcement;
import io.fsp.it.harness.SafeSite;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.relay.store.StoreConfig;
import io.fsp.testkit.relay.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code fsp evacuate} says, as a process, when the evacuation asked cannot be had: the dry run asks what the
 * real run will (relays reachable, their max-retain and per-transfer space, the account's retention right) and exits
 * 5 with each reason and what would fit; the real run exits 5 when a block has fewer copies than asked, naming the
 * files and why; a rerun never overwrites the manifest of an earlier evacuation.
 */
@Timeout(300)
class EvacuationShortfallIT {
    private static final Fault[] HONEST = {};

    @TempDir
    Path dir;

    private Path identity;
    private Path recipient;
    private Path manifest;

    @BeforeEach
    void keys() throws Exception {
        SafeSite site = SafeSite.under(dir);
        identity = site.identity();
        recipient = site.recipient();
        manifest = site.manifest();
    }

    private static void tree(StripeRig rig) throws Exception {
        Path tree = rig.root().resolve("tree");
        TreeDigests.random(tree.resolve("big.bin"), 3 * 1024 * 1024 + 17, 1);
        TreeDigests.random(tree.resolve("sub/small.txt"), 5000, 2);
    }

    private Result fsp(StripeRig rig, String... more) throws Exception {
        List<String> command = new ArrayList<>(List.of("evacuate",
                "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port() + "/tree", "--trust",
                rig.server().fingerprint().toString()));
        command.addAll(Arrays.asList(more));
        ProcessBuilder pb = FspCommand.process(command).redirectOutput(dir.resolve("evacuate.out").toFile())
                .redirectError(dir.resolve("evacuate.err").toFile());
        pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp evacuate did not end");
        return new Result(p.exitValue(), Files.readString(dir.resolve("evacuate.out")),
                Files.readString(dir.resolve("evacuate.err")));
    }

    private Result dryRun(StripeRig rig, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--dry-run"));
        args.addAll(Arrays.asList(more));
        return fsp(rig, args.toArray(String[]::new));
    }

    private Result evacuate(StripeRig rig, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--manifest", manifest.toString(), "--recipient", recipient.toString(),
                "--retain", "2h"));
        args.addAll(Arrays.asList(more));
        return fsp(rig, args.toArray(String[]::new));
    }

    private static void assertNothingKept(StripeRig rig) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (rig.relays().stream().mapToLong(r -> r.store().reserved()).sum() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(0, rig.relays().stream().mapToLong(r -> r.store().reserved()).sum(), "the probe kept nothing");
    }

    @Test
    void aDryRunWithNoRelayReachableCannotBeMet() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, HONEST, HONEST)) {
            tree(rig);
            rig.relays().forEach(r -> r.close());
            Result r = dryRun(rig, "--replicas", "1", "--deadline", "1h");
            assertEquals(ExitCodes.PARTIAL, r.exit(), r.toString());
            assertTrue(r.out().contains("deadline 3600 s: CANNOT be met"), r.toString());
            assertTrue(r.out().contains("0 relays took the transfer"), r.toString());
            assertTrue(r.out().matches("(?s).*relay 127\\.0\\.0\\.1:\\d+, 127\\.0\\.0\\.1:\\d+ refused: UNREACHABLE: .*"),
                    r.toString());
            assertTrue(r.out().contains("no block was placed on a relay within the probe"), r.toString());
            assertTrue(r.err().startsWith("fsp evacuate --dry-run: the evacuation as asked CANNOT be met: "), r.toString());
        }
    }

    @Test
    void aDryRunAskingLongerThanTheRelaysKeepNamesTheShortestTheyDo() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, StripeRig.store(s -> new StoreConfig(
                s.directory(), s.quotaBytes(), s.memoryBytes(), s.ttl(), s.serverQuotaBytes(), s.transferSpaceBytes(),
                Duration.ofDays(1), s.serverRetainedBytes())), Map.of(), HONEST, HONEST)) {
            tree(rig);
            Result r = dryRun(rig, "--replicas", "1", "--retain", "2d", "--json");
            assertEquals(ExitCodes.PARTIAL, r.exit(), r.toString());
            assertTrue(r.out().contains("\"can_be_met\":false"), r.toString());
            assertTrue(r.out().contains("refused: RETENTION_TOO_LONG: "), r.toString());
            assertTrue(r.out().contains("would fit: --retain 1d or shorter (the shortest max-retain they named)"), r.toString());
            assertNothingKept(rig);
            Result fits = dryRun(rig, "--replicas", "1", "--retain", "1d");
            assertEquals(ExitCodes.OK, fits.exit(), fits.toString());
            assertTrue(fits.out().contains("evacuation: can be met"), fits.toString());
            assertNothingKept(rig);
        }
    }

    @Test
    void aDryRunForAnAccountWithoutTheRightToRetainGivesTheServersReason() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, c -> c,
                Map.of("retain-user", List.of("someone-else=30d")), HONEST, HONEST)) {
            tree(rig);
            Result r = dryRun(rig, "--replicas", "1");
            assertEquals(ExitCodes.PARTIAL, r.exit(), r.toString());
            assertTrue(r.out().contains("the server refused the evacuation: ") && r.out().contains("550"), r.toString());
            assertTrue(r.out().contains("may not retain transfers at the relays"), r.toString());
            assertTrue(r.out().contains("it needs a retain-user line for this account, allowing at least --retain 7d"),
                    r.toString());
            for (var relay : rig.relays()) {
                assertEquals(0, relay.store().openTransfers(), "nothing opened");
            }
        }
    }

    @Test
    void aDryRunOnRelaysShortOfPerTransferSpaceSaysHowManyMoreWouldFit() throws Exception {
        // two relays of 2 MiB each (one sealed 1 MiB block each, in whole blocks) for two copies of 3 MiB
        long space = 2L << 20;
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, StripeRig.store(s -> new StoreConfig(
                s.directory(), s.quotaBytes(), s.memoryBytes(), s.ttl(), s.serverQuotaBytes(), space, s.maxRetain(),
                s.serverRetainedBytes())), Map.of(), HONEST, HONEST)) {
            tree(rig);
            Result r = dryRun(rig, "--replicas", "2", "--json");
            assertEquals(ExitCodes.PARTIAL, r.exit(), r.toString());
            assertTrue(r.out().contains("2 relays took the transfer (") && r.out().contains("reserving 2.0 MiB"), r.toString());
            assertTrue(r.out().contains("2 copies (--replicas 2) of 3."), r.toString());
            assertTrue(r.out().contains("would fit: 2 more relays with 3."), r.toString());
            assertTrue(r.out().contains("free each for this transfer (its --transfer-space, and as much free space)"),
                    r.toString());
            assertTrue(r.out().contains("stopped taking blocks: NO_SPACE: "), "the relays filled up: " + r);
            assertNothingKept(rig);
        }
    }

    @Test
    void copiesShortOfReplicasAreExit5NamingTheFilesAndARerunKeepsTheEarlierManifest() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, HONEST, HONEST)) {
            tree(rig);
            rig.relays().get(1).close();
            Result e = evacuate(rig, "--replicas", "2");
            assertEquals(ExitCodes.PARTIAL, e.exit(), e.toString());
            assertTrue(e.out().startsWith("evacuated: 2 of 2 files wholly on relays"), e.toString());
            assertTrue(e.out().contains("copies: 1 to 1 per block (--replicas 2); 2 files ("), e.toString());
            assertTrue(e.out().contains("SHORT OF COPIES  big.bin ("), e.toString());
            assertTrue(e.out().contains("SHORT OF COPIES  sub/small.txt ("), e.toString());
            assertTrue(e.out().contains(" refused: UNREACHABLE: "), "the reason, in the client's own output: " + e);
            assertTrue(e.err().contains("every file is out, but 2 files (") && e.err().contains("have fewer than 2 copies"),
                    e.toString());
            assertTrue(e.err().contains("refused: UNREACHABLE"), e.toString());
            EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
            assertTrue(m.announcements().stream().anyMatch(a -> a instanceof Announcement.Refused), "kept in the manifest");
            byte[] first = Files.readAllBytes(manifest);

            Result again = evacuate(rig, "--replicas", "1");
            assertEquals(ExitCodes.USAGE, again.exit(), again.toString());
            assertTrue(again.err().contains("--manifest " + manifest + " exists") && again.err().contains("--force"),
                    again.toString());
            assertTrue(Arrays.equals(first, Files.readAllBytes(manifest)), "not overwritten");

            Result forced = evacuate(rig, "--replicas", "1", "--force");
            assertEquals(ExitCodes.OK, forced.exit(), forced.toString());
            assertTrue(forced.err().contains("kept the earlier manifest as " + manifest + ".1"), forced.toString());
            assertTrue(Arrays.equals(first, Files.readAllBytes(Path.of(manifest + ".1"))), "the earlier one, as it was");

            // both collect whole, the SPACE and REFUSED lines of their manifests left aside
            String origin = rig.server().fingerprint().toString();
            rig.server().close();
            for (Path each : List.of(manifest, Path.of(manifest + ".1"))) {
                Path bag = dir.resolve("bag-" + each.getFileName());
                Result c = FspCommand.run(List.of("collect", each.toString(), "-o", bag.toString(), "--identity",
                        identity.toString(), "--trust-origin", origin));
                assertEquals(ExitCodes.OK, c.exit(), c.toString());
                assertEquals(TreeDigests.of(rig.root().resolve("tree")), TreeDigests.of(bag.resolve("data")));
            }
            assertFalse(Files.exists(Path.of(manifest + ".2")));
        }
    }
}
