package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.SafeSite;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
    private static final String USER = "ops";
    private static final String PASSWORD = "rerun-me";

    @TempDir
    static Path dir;

    private static final List<RelayProcess> relays = new ArrayList<>();
    private static final List<InetSocketAddress> addresses = new ArrayList<>();
    private static ServerProcess server;
    private static Fingerprint originFp;
    private static SafeSite site;
    private static Path tree;

    @BeforeAll
    static void start() throws Exception {
        site = SafeSite.under(dir);
        Path root = dir.resolve("root");
        tree = root.resolve("tree");
        TreeDigests.random(tree.resolve("big.bin"), 3 * 1024 * 1024 + 17, 1);
        TreeDigests.random(tree.resolve("minutes 2026/a b.txt"), 5000, 2);
        Path state = Files.createDirectories(dir.resolve("server-state"));
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        originFp = key.fingerprint();
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", root.toString(), "--user", USER,
                "--state-dir", state.toString(), "--login-failure-delay", "0s", "--retain-user", USER + "=7d"));
        // 0 keeps evacuations a day at most; 1 goes down before anything is asked; 2 gives a transfer 2 MiB
        List<List<String>> options = List.of(List.of("--max-retain", "1d"), List.of(), List.of("--transfer-space", "2M"));
        for (int i = 0; i < options.size(); i++) {
            addresses.add(new InetSocketAddress("127.0.0.1", freePort()));
            RelayProcess r = RelayProcess.start(dir.resolve("relay" + i), addresses.get(i), originFp,
                    options.get(i).toArray(String[]::new));
            relays.add(r);
            args.addAll(List.of("--relay", "127.0.0.1:" + r.address().getPort() + "=" + r.fingerprint()));
        }
        relays.get(1).kill();
        server = ServerProcess.start(root, args, 1, Map.of("FSP_PASSWORD_" + USER.toUpperCase(), PASSWORD));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        relays.forEach(RelayProcess::close);
    }

    @Test
    @Order(1)
    void theDryRunNamesEachRelaysReasonAndWhatWouldFit() throws Exception {
        Result r = evacuate("--dry-run", "--retain", "2d");
        assertEquals(ExitCodes.PARTIAL, r.exit(), r.toString());
        assertTrue(r.out().contains("evacuation: CANNOT be met"), r.toString());
        assertTrue(r.out().contains(address(0) + " refused: RETENTION_TOO_LONG: "), r.toString());
        assertTrue(r.out().contains(address(1) + " refused: UNREACHABLE: "), r.toString());
        assertTrue(r.out().contains("would fit: --retain 1d or shorter (the shortest max-retain they named)"), r.toString());
        // relay 2 took it but holds 2 of the 3 MiB: two more relays, each with room for a whole copy
        assertTrue(r.out().contains("would fit: 2 more relays with 3.0 MiB free each for this transfer"), r.toString());
        assertTrue(r.out().contains(address(2) + " stopped taking blocks: NO_SPACE: "), r.toString());
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
        assertTrue(first.out().contains(address(1) + " refused: UNREACHABLE: "), "the reason, in its output: " + first);
        assertTrue(first.err().contains("have fewer than 2 copies"), first.toString());
        byte[] earlier = Files.readAllBytes(manifest);

        relays.set(1, RelayProcess.start(dir.resolve("relay1"), addresses.get(1), originFp));
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
        server.kill();
        Result release = fsp("release", manifest + ".1", "--identity", site.identity().toString());
        assertEquals(ExitCodes.OK, release.exit(), release.toString());
        Path bag = dir.resolve("bag");
        Result collect = fsp("collect", manifest.toString(), "-o", bag.toString(), "--identity",
                site.identity().toString(), "--trust-origin", originFp.toString());
        assertEquals(ExitCodes.OK, collect.exit(), collect.toString());
        assertEquals(TreeDigests.of(tree), TreeDigests.of(bag.resolve("data")));
        for (int i = 0; i < relays.size(); i++) {
            assertEquals(List.of(), blockFiles(i, 20), "relay " + i + " holds a block of neither evacuation");
        }
        assertFalse(Files.exists(Path.of(manifest + ".2")));
    }

    private static String address(int relay) {
        return "127.0.0.1:" + addresses.get(relay).getPort();
    }

    /** {@code fsp evacuate} of the tree, two copies, as the origin's operator runs it. */
    private static Result evacuate(String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("evacuate", "fsp://" + USER + "@127.0.0.1:" + server.port() + "/tree",
                "--trust", originFp.toString(), "--replicas", "2"));
        args.addAll(Arrays.asList(more));
        return fsp(Map.of("FSP_PASSWORD", PASSWORD), args.toArray(String[]::new));
    }

    private static Result fsp(String... args) throws Exception {
        return fsp(Map.of(), args);
    }

    private static Result fsp(Map<String, String> env, String... args) throws Exception {
        return FspCommand.runProcess(dir, env, Arrays.asList(args));
    }

    /** The block files in relay {@code i}'s store, once there are none or after {@code seconds}. */
    private static List<Path> blockFiles(int i, int seconds) throws Exception {
        return relays.get(i).blockFiles(null, seconds);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
