package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.client.collect.EvacuationInventory;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.crypto.RecipientKey;
import io.fsp.it.harness.EvacuationOrigin;
import io.fsp.it.harness.SafeSite;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.TreeDigests;
import io.fsp.token.TransferId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the safe site can do with a manifest short of collecting, every command a process of its own against three
 * real relays, the real server that evacuated to them gone: {@code fsp collect --list} (files, copies, retention
 * end, relays), {@code --check} (which blocks the relays still hold, freeing nothing; a relay gone costs copies, not
 * files), {@code fsp release} (frees every block; a relay down is named and freed by running it again once it is
 * back, or by {@code --wait}, which asks until it is), and a collection with a relay down says which relay keeps its
 * blocks and that {@code fsp release} frees them. The processes are the class's: the server evacuates two data sets
 * and is killed before any test runs; a test that kills a relay starts it again before it ends, and the one that
 * frees nothing runs first.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EvacuationReleaseIT {
    @TempDir
    static Path dir;

    private static EvacuationOrigin origin;
    private static Path identity;
    /** The evacuations by name: one collected, one listed and released (after bad input freed nothing of it). */
    private static final Map<String, Path> manifests = new HashMap<>();

    @BeforeAll
    static void start() throws Exception {
        SafeSite site = SafeSite.under(dir);
        identity = site.identity();
        Path root = dir.resolve("root");
        Path tree = root.resolve("tree");
        TreeDigests.random(tree.resolve("big.bin"), 3 * 1024 * 1024 + 17, 1);
        for (int i = 0; i < 6; i++) {
            TreeDigests.random(tree.resolve("sub/small " + i + ".txt"), 100 + i * 997, 10 + i);
        }
        origin = EvacuationOrigin.start(dir, root, List.of(List.of(), List.of(), List.of()));
        for (String name : List.of("list", "collect")) {
            Path manifest = site.manifest().resolveSibling(name + ".sealed");
            Result e = origin.evacuate("tree", "--manifest", manifest.toString(), "--recipient",
                    site.recipient().toString(), "--retain", "2h", "--replicas", "2");
            assertEquals(ExitCodes.OK, e.exit(), e.toString());
            manifests.put(name, manifest);
        }
        origin.server().kill(); // the origin is gone: nothing below asks it
    }

    @AfterAll
    static void stop() {
        if (origin != null) {
            origin.close();
        }
    }

    @Test
    void theSafeSiteListsChecksAndReleasesAnEvacuationWithARelayDown() throws Exception {
        Path manifest = manifests.get("list");
        EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
        TransferId transfer = transfer(m);

        Result list = fsp("collect", "--list", manifest.toString(), "--identity", identity.toString());
        assertEquals(ExitCodes.OK, list.exit(), list.toString());
        assertTrue(list.out().contains("retained by the relays until " + m.retainUntil()), list.toString());
        assertTrue(list.out().contains("    sub/small 3.txt  3091 bytes  1 blocks  copies 2\n"), list.toString());
        assertTrue(list.out().contains("    big.bin  3145745 bytes  4 blocks  copies 2\n"), list.toString());
        Result json = fsp("collect", "--list", manifest.toString(), "--identity", identity.toString(), "--json");
        assertEquals(ExitCodes.OK, json.exit(), json.toString());
        assertTrue(json.out().contains("\"retain_until\":\"" + m.retainUntil() + "\""), json.toString());
        assertTrue(json.out().contains("{\"name\":\"big.bin\",\"size\":3145745,\"blocks\":4,\"min_copies\":2,"
                + "\"max_copies\":2,\"whole\":true}"), json.toString());

        Result check = check(manifest);
        assertEquals(ExitCodes.OK, check.exit(), check.toString());
        assertTrue(check.out().contains("big.bin: 2 of 2 copies held"), check.toString());
        assertTrue(check.out().contains("every file can still be collected whole"), check.toString());

        int lost = relayHoldingMost(m);
        String lostAddress = origin.address(lost);
        try {
            origin.relay(lost).kill();
            check = check(manifest);
            assertEquals(ExitCodes.OK, check.exit(), "one copy of each block is left: " + check);
            assertTrue(check.out().contains("relay " + lostAddress + ": UNREACHABLE"), check.toString());
            assertTrue(check.out().contains("1 of 2 copies held"), "fewer copies: " + check);
            assertTrue(check.out().contains("relays unreachable: " + lostAddress), check.toString());

            Result release = fsp("release", manifest.toString(), "--identity", identity.toString());
            assertEquals(ExitCodes.PARTIAL, release.exit(), release.toString());
            assertTrue(release.out().contains("relay " + lostAddress + ": UNREACHABLE"), release.toString());
            assertTrue(release.err().contains("(" + lostAddress + "): their blocks are freed when 'fsp release"),
                    release.toString());
            assertTrue(release.err().contains("when the retention ends at " + m.retainUntil()), release.toString());
            for (int i = 0; i < 3; i++) {
                if (i != lost) {
                    assertEquals(List.of(), blockFiles(i, transfer, 10), "relay " + i + " freed: " + release);
                }
            }
            check = check(manifest);
            assertEquals(ExitCodes.PARTIAL, check.exit(), "the blocks are gone: " + check);
            assertTrue(check.out().contains("AT RISK"), check.toString());
        } finally {
            origin.restart(lost);
        }
        assertFalse(blockFiles(lost, transfer, 0).isEmpty(), "the restarted relay kept its blocks");
        Result release = fsp("release", manifest.toString(), "--identity", identity.toString());
        assertEquals(ExitCodes.OK, release.exit(), release.toString());
        assertTrue(release.out().contains("relay " + lostAddress + ": freed "), release.toString());
        assertTrue(release.out().contains(": already gone"), "the others freed before: " + release);
        assertEquals(List.of(), blockFiles(lost, transfer, 10), "the relay holds none of the transfer");
        check = check(manifest);
        assertEquals(ExitCodes.PARTIAL, check.exit(), check.toString());
        assertTrue(check.out().contains("holds 0 of the"), check.toString());
    }

    /**
     * A relay down during the collection keeps its copies; {@code fsp release --wait}, started while it is still
     * down, frees them as soon as it is back.
     */
    @Test
    void aRelayDownDuringTheCollectionFreesItsCopiesWhenItComesBack() throws Exception {
        Path manifest = manifests.get("collect");
        EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
        TransferId transfer = transfer(m);
        int lost = relayHoldingMost(m);
        String lostAddress = origin.address(lost);
        Process waiting;
        try {
            origin.relay(lost).kill();
            Result collect = fsp("collect", manifest.toString(), "-o", dir.resolve("bag").toString(), "--identity",
                    identity.toString(), "--trust-origin", origin.fingerprint().toString());
            assertEquals(ExitCodes.OK, collect.exit(), collect.toString());
            assertEquals(TreeDigests.of(dir.resolve("root/tree")), TreeDigests.of(dir.resolve("bag/data")));
            assertTrue(collect.err().contains("relay " + lostAddress + " could not be told to free its"),
                    collect.toString());
            assertTrue(collect.err().contains("'fsp release " + manifest), collect.toString());
            assertFalse(blockFiles(lost, transfer, 0).isEmpty(), "the relay down kept its copies");

            waiting = FspCommand.process(List.of("release", manifest.toString(), "--identity", identity.toString(),
                    "--wait", "2m", "--json")).redirectOutput(dir.resolve("wait.out").toFile())
                    .redirectError(dir.resolve("wait.err").toFile()).start();
            awaitText(dir.resolve("wait.err"), "fsp release: waiting until ");
            assertTrue(waiting.isAlive(), "it waits for the relay");
        } finally {
            origin.restart(lost);
        }
        assertTrue(waiting.waitFor(60, TimeUnit.SECONDS), "fsp release --wait did not end");
        Result release = new Result(waiting.exitValue(), Files.readString(dir.resolve("wait.out")),
                Files.readString(dir.resolve("wait.err")));
        System.out.println("$ fsp release --wait 2m --json\n" + release);
        assertEquals(ExitCodes.OK, release.exit(), release.toString());
        assertTrue(release.err().contains("fsp release: relay " + lostAddress + " is back"), release.toString());
        assertTrue(release.out().contains("\"released\":true"), release.toString());
        assertEquals(List.of(), blockFiles(lost, transfer, 10), "the relay holds none of the transfer");
    }

    @Test
    @Order(1) // it frees nothing of the evacuation the first test below releases
    void badInputGetsClearErrors() throws Exception {
        Path missing = dir.resolve("nothing.sealed");
        Result r = fsp("collect", "--check", missing.toString(), "--identity", identity.toString(), "--no-origin-check");
        assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
        assertTrue(r.err().contains(missing + ": no such manifest"), r.toString());
        r = fsp("release", missing.toString(), "--identity", identity.toString());
        assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
        assertTrue(r.err().contains("fsp release: " + missing + ": no such manifest"), r.toString());
        r = fsp("release", missing.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), "the identity is the authority: " + r);
        r = fsp("collect", "--list", "--check", missing.toString(), "--identity", identity.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.toString());

        Path manifest = manifests.get("list");
        r = fsp("release", manifest.toString(), "--identity", identity.toString(), "--wait", "soon");
        assertEquals(ExitCodes.USAGE, r.exit(), r.toString());
        assertTrue(r.err().contains("fsp release: --wait: 'soon' (expected: digits and s, m, h or d"), r.toString());
        Path other = dir.resolve("other/identity");
        RecipientKey.generate("").writeIdentity(other, false);
        for (List<String> args : List.of(List.of("release", manifest.toString(), "--identity", other.toString()),
                List.of("collect", "--list", manifest.toString(), "--identity", other.toString()))) {
            r = fsp(args.toArray(String[]::new));
            assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
            assertTrue(r.err().contains("sealed to another recipient key"), r.toString());
        }
        EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
        assertFalse(blockFiles(relayHoldingMost(m), transfer(m), 0).isEmpty(), "nothing was freed");
    }

    private static Result check(Path manifest) throws Exception {
        return fsp("collect", "--check", manifest.toString(), "--identity", identity.toString(), "--trust-origin",
                origin.fingerprint().toString());
    }

    private static TransferId transfer(EvacuationManifest m) {
        return new EvacuationInventory(m.announcements()).transferId();
    }

    /** The relay the evacuation placed the most blocks on. */
    private static int relayHoldingMost(EvacuationManifest m) {
        EvacuationInventory.RelayEntry most = new EvacuationInventory(m.announcements()).relays().stream()
                .max(Comparator.comparingInt(r -> r.seqs().size())).orElseThrow();
        return origin.relayAt(most.port());
    }

    private static void awaitText(Path file, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(file) && Files.readString(file).contains(text))) {
            assertTrue(System.nanoTime() < deadline, "no '" + text + "' in " + file);
            Thread.sleep(100);
        }
    }

    private static Result fsp(String... args) throws Exception {
        return FspCommand.runProcess(dir, Map.of(), Arrays.asList(args));
    }

    /** The block files of {@code transfer} in relay {@code i}'s store, once there are none or after {@code seconds}. */
    private static List<Path> blockFiles(int i, TransferId transfer, int seconds) throws Exception {
        return origin.relay(i).blockFiles(transfer.toString(), seconds);
    }
}
