package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.it.harness.EvacuationOrigin;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.SafeSite;
import io.fsp.it.harness.TreeDigests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An evacuation that cannot be had as asked, as the operator meets it, every command a process of its own against a
 * real server and real relays: one relay keeps evacuations for a day at most, one is down, one has little space
 * for a transfer. The dry run names each relay's reason and what would fit; the real run exits 5 naming the files
 * short of copies and why; once the relay is back, a rerun refuses to overwrite the manifest, then with
 * {@code --force} keeps the earlier one, and the safe site releases the earlier evacuation and collects the new one,
 * leaving no block behind on any relay. The processes are the class's; the test that brings the relay back runs last.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EvacuationRerunIT {
    @TempDir
    static Path dir;

    private static EvacuationOrigin origin;
    private static SafeSite site;
    private static Path tree;

    @BeforeAll
    static void start() throws Exception {
        site = SafeSite.under(dir);
        Path root = dir.resolve("root");
        tree = root.resolve("tree");
        TreeDigests.random(tree.resolve("big.bin"), 3 * 1024 * 1024 + 17, 1);
        TreeDigests.random(tree.resolve("minutes 2026/a b.txt"), 5000, 2);
        // 0 keeps evacuations a day at most; 1 goes down before anything is asked; 2 gives a transfer 2 MiB
        origin = EvacuationOrigin.start(dir, root, List.of(List.of("--max-retain", "1d"), List.of(),
                List.of("--transfer-space", "2M")));
        origin.relay(1).kill();
    }

    @AfterAll
    static void stop() {
        if (origin != null) {
            origin.close();
        }
    }

    @Test
    @Order(1)
    void theDryRunNamesEachRelaysReasonAndWhatWouldFit() throws Exception {
        Result r = evacuate("--dry-run", "--retain", "2d");
        assertEquals(ExitCodes.PARTIAL, r.exit(), r.toString());
        assertTrue(r.out().contains("evacuation: CANNOT be met"), r.toString());
        assertTrue(r.out().contains(origin.address(0) + " refused: RETENTION_TOO_LONG: "), r.toString());
        assertTrue(r.out().contains(origin.address(1) + " refused: UNREACHABLE: "), r.toString());
        assertTrue(r.out().contains("would fit: --retain 1d or shorter (the shortest max-retain they named)"),
                r.toString());
        // relay 2 took it but holds 2 of the 3 MiB: two more relays, each with room for a whole copy
        assertTrue(r.out().contains("would fit: 2 more relays with 3.0 MiB free each for this transfer"), r.toString());
        assertTrue(r.out().contains(origin.address(2) + " stopped taking blocks: NO_SPACE: "), r.toString());
        assertTrue(r.err().startsWith("fsp evacuate --dry-run: the evacuation as asked CANNOT be met: "), r.toString());
        for (int i : List.of(0, 2)) {
            assertEquals(List.of(), blockFiles(i, 20), "the dry run kept nothing on relay " + i);
        }
    }

    @Test
    @Order(2) // it brings relay 1 back and ends the origin
    void aRerunOnceTheRelayIsBackKeepsTheEarlierManifestAndNothingIsLeftBehind() throws Exception {
        Path manifest = site.manifest();
        Result first = evacuate("--manifest", manifest.toString(), "--recipient", site.recipient().toString(),
                "--retain", "1d");
        assertEquals(ExitCodes.PARTIAL, first.exit(), first.toString());
        assertTrue(first.out().contains("SHORT OF COPIES  big.bin ("), first.toString());
        assertTrue(first.out().contains(origin.address(1) + " refused: UNREACHABLE: "), "the reason: " + first);
        assertTrue(first.err().contains("have fewer than 2 copies"), first.toString());
        byte[] earlier = Files.readAllBytes(manifest);

        origin.restart(1);
        Result refused = evacuate("--manifest", manifest.toString(), "--recipient", site.recipient().toString(),
                "--retain", "1d");
        assertEquals(ExitCodes.USAGE, refused.exit(), refused.toString());
        assertTrue(refused.err().contains("--manifest " + manifest + " exists"), refused.toString());
        assertTrue(Arrays.equals(earlier, Files.readAllBytes(manifest)), "not overwritten");

        Result again = evacuate("--manifest", manifest.toString(), "--recipient", site.recipient().toString(),
                "--retain", "1d", "--force");
        assertEquals(ExitCodes.OK, again.exit(), again.toString());
        assertTrue(again.out().contains("copies: 2 to 2 per block (--replicas 2)"), again.toString());
        assertTrue(again.err().contains("kept the earlier manifest as " + manifest + ".1"), again.toString());
        assertTrue(Arrays.equals(earlier, Files.readAllBytes(Path.of(manifest + ".1"))), "the earlier one, as it was");

        // the origin is gone; the safe site frees the earlier evacuation and collects the complete one
        origin.server().kill();
        Result release = fsp("release", manifest + ".1", "--identity", site.identity().toString());
        assertEquals(ExitCodes.OK, release.exit(), release.toString());
        Path bag = dir.resolve("bag");
        Result collect = fsp("collect", manifest.toString(), "-o", bag.toString(), "--identity",
                site.identity().toString(), "--trust-origin", origin.fingerprint().toString());
        assertEquals(ExitCodes.OK, collect.exit(), collect.toString());
        assertEquals(TreeDigests.of(tree), TreeDigests.of(bag.resolve("data")));
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of(), blockFiles(i, 20), "relay " + i + " holds a block of neither evacuation");
        }
        assertFalse(Files.exists(Path.of(manifest + ".2")));
    }

    /** {@code fsp evacuate} of the tree, two copies, as the origin's operator runs it. */
    private static Result evacuate(String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--replicas", "2"));
        args.addAll(Arrays.asList(more));
        return origin.evacuate("tree", args.toArray(String[]::new));
    }

    private static Result fsp(String... args) throws Exception {
        return FspCommand.runProcess(dir, Map.of(), Arrays.asList(args));
    }

    /** The block files in relay {@code i}'s store, once there are none or after {@code seconds}. */
    private static List<Path> blockFiles(int i, int seconds) throws Exception {
        return origin.relay(i).blockFiles(null, seconds);
    }
}
