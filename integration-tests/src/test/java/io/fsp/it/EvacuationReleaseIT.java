package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.crypto.RecipientKey;
import io.fsp.it.harness.SafeSite;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the safe site can do with a manifest short of collecting, every command a process of its own against a real
 * server and three real relays: {@code fsp collect --list} (files, copies, retention end, relays), {@code --check}
 * (which blocks the relays still hold, freeing nothing; a relay gone costs copies, not files), {@code fsp release}
 * (frees every block; a relay down is named and freed by running it again once it is back), and a collection with a
 * relay down says which relay keeps its blocks and that {@code fsp release} frees them.
 */
@Timeout(300)
class EvacuationReleaseIT {
    private static final String USER = "ops";
    private static final String PASSWORD = "evacuate-me";

    @TempDir
    Path dir;

    private final List<RelayProcess> relays = new ArrayList<>();
    private final List<Path> relayDirs = new ArrayList<>();
    private final List<InetSocketAddress> relayAddresses = new ArrayList<>();
    private ServerProcess server;
    private Fingerprint originFp;
    private Path identity;
    private Path recipient;
    private Path manifest;

    @BeforeEach
    void start() throws Exception {
        SafeSite site = SafeSite.under(dir);
        identity = site.identity();
        recipient = site.recipient();
        manifest = site.manifest();
        Path root = dir.resolve("root");
        Path tree = root.resolve("tree");
        TreeDigests.random(tree.resolve("big.bin"), 3 * 1024 * 1024 + 17, 1);
        for (int i = 0; i < 6; i++) {
            TreeDigests.random(tree.resolve("sub/small " + i + ".txt"), 100 + i * 997, 10 + i);
        }
        Path state = Files.createDirectories(dir.resolve("server-state"));
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        originFp = key.fingerprint();
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", root.toString(), "--user", USER,
                "--state-dir", state.toString(), "--login-failure-delay", "0s", "--retain-user", USER + "=7d"));
        for (int i = 0; i < 3; i++) {
            relayDirs.add(dir.resolve("relay" + i));
            relayAddresses.add(new InetSocketAddress("127.0.0.1", freePort()));
            RelayProcess r = RelayProcess.start(relayDirs.get(i), relayAddresses.get(i), originFp);
            relays.add(r);
            args.addAll(List.of("--relay", "127.0.0.1:" + r.address().getPort() + "=" + r.fingerprint()));
        }
        server = ServerProcess.start(root, args, 1, Map.of("FSP_PASSWORD_" + USER.toUpperCase(), PASSWORD));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        relays.forEach(RelayProcess::close);
    }

    @Test
    void theSafeSiteListsChecksAndReleasesAnEvacuationWithARelayDown() throws Exception {
        evacuate();
        EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
        server.kill(); // the origin is gone: nothing below asks it

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

        Result check = check();
        assertEquals(ExitCodes.OK, check.exit(), check.toString());
        assertTrue(check.out().contains("big.bin: 2 of 2 copies held"), check.toString());
        assertTrue(check.out().contains("every file can still be collected whole"), check.toString());

        int lost = relayHoldingMost();
        String lostAddress = "127.0.0.1:" + relayAddresses.get(lost).getPort();
        relays.get(lost).kill();
        check = check();
        assertEquals(ExitCodes.OK, check.exit(), "one copy of each block is left: " + check);
        assertTrue(check.out().contains("relay " + lostAddress + ": UNREACHABLE"), check.toString());
        assertTrue(check.out().contains("1 of 2 copies held"), "fewer copies: " + check);
        assertTrue(check.out().contains("relays unreachable: " + lostAddress), check.toString());

        Result release = fsp("release", manifest.toString(), "--identity", identity.toString());
        assertEquals(ExitCodes.PARTIAL, release.exit(), release.toString());
        assertTrue(release.out().contains("relay " + lostAddress + ": UNREACHABLE"), release.toString());
        assertTrue(release.err().contains("(" + lostAddress + "): their blocks are freed when 'fsp release"), release.toString());
        assertTrue(release.err().contains("when the retention ends at " + m.retainUntil()), release.toString());
        for (int i = 0; i < 3; i++) {
            if (i != lost) {
                assertEquals(List.of(), blockFiles(relays.get(i).store(), 10), "relay " + i + " freed: " + release);
            }
        }
        check = check();
        assertEquals(ExitCodes.PARTIAL, check.exit(), "the blocks are gone: " + check);
        assertTrue(check.out().contains("AT RISK"), check.toString());

        relays.set(lost, RelayProcess.start(relayDirs.get(lost), relayAddresses.get(lost), originFp));
        assertTrue(!blockFiles(relays.get(lost).store(), 0).isEmpty(), "the restarted relay kept its blocks");
        release = fsp("release", manifest.toString(), "--identity", identity.toString());
        assertEquals(ExitCodes.OK, release.exit(), release.toString());
        assertTrue(release.out().contains("relay " + lostAddress + ": freed "), release.toString());
        assertTrue(release.out().contains(": already gone"), "the others freed before: " + release);
        assertEquals(List.of(), blockFiles(relays.get(lost).store(), 10), "the relay holds none of the transfer");
        check = check();
        assertEquals(ExitCodes.PARTIAL, check.exit(), check.toString());
        assertTrue(check.out().contains("holds 0 of the"), check.toString());
    }

    @Test
    void aCollectionWithARelayDownSaysReleaseFreesItsBlocksLater() throws Exception {
        evacuate();
        server.kill();
        int lost = relayHoldingMost();
        String lostAddress = "127.0.0.1:" + relayAddresses.get(lost).getPort();
        relays.get(lost).kill();
        Result collect = fsp("collect", manifest.toString(), "-o", dir.resolve("bag").toString(), "--identity",
                identity.toString(), "--trust-origin", originFp.toString());
        assertEquals(ExitCodes.OK, collect.exit(), collect.toString());
        assertTrue(collect.err().contains("relay " + lostAddress + " could not be told to free its"), collect.toString());
        assertTrue(collect.err().contains("'fsp release " + manifest), collect.toString());

        relays.set(lost, RelayProcess.start(relayDirs.get(lost), relayAddresses.get(lost), originFp));
        Result release = fsp("release", manifest.toString(), "--identity", identity.toString(), "--json");
        assertEquals(ExitCodes.OK, release.exit(), release.toString());
        assertTrue(release.out().contains("\"released\":true"), release.toString());
        assertEquals(List.of(), blockFiles(relays.get(lost).store(), 10), "the relay holds none of the transfer");
    }

    @Test
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

        evacuate();
        Path other = dir.resolve("other/identity");
        RecipientKey.generate("").writeIdentity(other, false);
        for (List<String> args : List.of(List.of("release", manifest.toString(), "--identity", other.toString()),
                List.of("collect", "--list", manifest.toString(), "--identity", other.toString()))) {
            r = fsp(args.toArray(String[]::new));
            assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
            assertTrue(r.err().contains("sealed to another recipient key"), r.toString());
        }
        assertTrue(!blockFiles(relays.get(relayHoldingMost()).store(), 0).isEmpty(), "nothing was freed");
    }

    private void evacuate() throws Exception {
        Result e = fsp(Map.of("FSP_PASSWORD", PASSWORD), "evacuate", "fsp://" + USER + "@127.0.0.1:" + server.port() + "/tree",
                "--trust", originFp.toString(), "--manifest", manifest.toString(), "--recipient", recipient.toString(),
                "--retain", "2h", "--replicas", "2");
        assertEquals(ExitCodes.OK, e.exit(), e.toString());
    }

    private Result check() throws Exception {
        return fsp("collect", "--check", manifest.toString(), "--identity", identity.toString(), "--trust-origin",
                originFp.toString());
    }

    /** The relay with the most block files in its store. */
    private int relayHoldingMost() throws Exception {
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2));
        List<Integer> counts = new ArrayList<>();
        for (RelayProcess r : relays) {
            counts.add(blockFiles(r.store(), 0).size());
        }
        order.sort(Comparator.comparing(counts::get));
        return order.get(2);
    }

    private Result fsp(String... args) throws Exception {
        return fsp(Map.of(), args);
    }

    /** {@code fsp ARGS} as a process. */
    private Result fsp(Map<String, String> env, String... args) throws Exception {
        Path out = Files.createTempFile(dir, "fsp", ".out");
        Path err = Files.createTempFile(dir, "fsp", ".err");
        ProcessBuilder pb = FspCommand.process(Arrays.asList(args)).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp " + String.join(" ", args) + " did not end");
        Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        System.out.println("$ fsp " + String.join(" ", args) + "\n" + r); // the operator's view, in the test's report
        return r;
    }

    /** The block files under a relay's store, once there are none or after {@code seconds}. */
    private static List<Path> blockFiles(Path store, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true) {
            List<Path> left;
            try (Stream<Path> s = Files.walk(store)) {
                left = s.filter(p -> p.getFileName().toString().endsWith(".blk")).toList();
            }
            if (left.isEmpty() || System.nanoTime() > deadline) {
                return left;
            }
            Thread.sleep(100);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
