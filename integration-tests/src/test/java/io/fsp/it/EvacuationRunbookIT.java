package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.Runbook;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evacuation runbook (docs/runbooks/evacuation.md), its commands run as an operator would, with real processes:
 * an fsp-server with three relays, a tree of many small files and a large one; the safe site's keys, a dry run, the
 * evacuation with two replicas; then the disaster — the origin server killed, one relay killed, another restarted
 * — and the collection at the safe site, byte-identical, as a BagIt bag that {@code sha256sum -c} accepts.
 */
class EvacuationRunbookIT {
    private static final String USER = "ops";
    private static final String PASSWORD = "evacuate-me";

    @TempDir
    Path dir;

    private final List<RelayProcess> relays = new ArrayList<>();
    private ServerProcess server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        relays.forEach(RelayProcess::close);
    }

    @Test
    void theRunbookEvacuatesATreeAndTheSafeSiteCollectsItAfterTheOriginAndARelayAreGone() throws Exception {
        Path root = dir.resolve("root");
        Path archive = root.resolve("archive");
        smallAndLarge(archive);
        Path safe = Files.createDirectories(dir.resolve("safe"));
        Path carry = Files.createDirectories(dir.resolve("carry"));
        Fingerprint originFp = startSite(root);

        Runbook runbook = Runbook.load("evacuation");
        assertEquals(5, runbook.steps().size(), runbook.toString());
        Map<String, String> env = new HashMap<>();
        env.put("FSP", fspLauncher().toString());
        env.put("SAFE", safe.toString());
        env.put("CARRY", carry.toString());
        env.put("ORIGIN", "fsp://" + USER + "@127.0.0.1:" + server.port() + "/archive");
        env.put("ORIGIN_FP", originFp.toString());
        env.put("FSP_PASSWORD", PASSWORD);

        // 0: the safe site's keys; the public key is carried to the threatened site
        ok(runbook.run(0, env, dir, 120));
        Files.copy(safe.resolve("keys/recipient.pub"), carry.resolve("recipient.pub"));
        Files.writeString(carry.resolve("priority.txt"), "docs\nbig.bin\n");
        // 1: the dry run fits the deadline; 2: the evacuation places every block
        ok(runbook.run(1, env, dir, 300));
        Runbook.Outcome evacuated = runbook.run(2, env, dir, 300);
        ok(evacuated);
        assertTrue(Files.size(carry.resolve("evacuation.sealed")) > 0, evacuated.toString());

        // the disaster: the origin is gone, relay 0 is gone, relay 1 restarts
        server.kill();
        relays.get(0).kill();
        relays.set(1, restart(1, originFp));

        // 3: the safe site collects from the relays that are left; 4: the bag checks
        Runbook.Outcome collected = runbook.run(3, env, dir, 300);
        ok(collected);
        Map<String, String> expected = TreeDigests.of(archive);
        assertEquals(expected, TreeDigests.of(safe.resolve("archive/data")), collected.toString());
        // every block collected was confirmed to the relays left, which freed it (relay 0 is gone with its copies)
        for (int i = 1; i < 3; i++) {
            assertEquals(List.of(), blockFiles(relays.get(i).store(), 10), "relay " + i + " still holds blocks: " + collected);
        }
        Runbook.Outcome bag = runbook.run(4, env, dir, 120);
        ok(bag);
        assertTrue(bag.output().contains("bag verified"), bag.toString());
    }

    private static void ok(Runbook.Outcome o) {
        System.out.println(o); // the operator's view of each step, in the test's report
        assertEquals(0, o.exitCode(), o.toString());
    }

    /** 150 small files in nested directories and one large file: what an evacuation meets. */
    private static void smallAndLarge(Path archive) throws Exception {
        Random random = new Random(14);
        for (int i = 0; i < 150; i++) {
            Path f = archive.resolve("docs/d" + (i % 7) + "/f" + i + ".txt");
            Files.createDirectories(f.getParent());
            TreeDigests.random(f, random.nextInt(20_000), i);
        }
        Files.createDirectories(archive.resolve("empty-dir"));
        TreeDigests.random(archive.resolve("big.bin"), 24 * 1024 * 1024 + 17, 99);
    }

    private Path serverState;
    private final List<Path> relayDirs = new ArrayList<>();
    private final List<InetSocketAddress> relayAddresses = new ArrayList<>();

    /** The origin server with three relays on fixed ports (a restarted relay keeps its address). */
    private Fingerprint startSite(Path root) throws Exception {
        serverState = Files.createDirectories(dir.resolve("server-state"));
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, serverState.resolve("server-cert.pem"), serverState.resolve("server-key.pem"));
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", root.toString(), "--user", USER,
                "--state-dir", serverState.toString(), "--login-failure-delay", "0s", "--retain-user", USER + "=7d"));
        for (int i = 0; i < 3; i++) {
            Path d = dir.resolve("relay" + i);
            relayDirs.add(d);
            relayAddresses.add(new InetSocketAddress("127.0.0.1", freePort()));
            RelayProcess r = RelayProcess.start(d, relayAddresses.get(i), key.fingerprint());
            relays.add(r);
            args.add("--relay");
            args.add("127.0.0.1:" + r.address().getPort() + "=" + r.fingerprint());
        }
        server = ServerProcess.start(root, args, 1, Map.of("FSP_PASSWORD_OPS", PASSWORD));
        return key.fingerprint();
    }

    private RelayProcess restart(int i, Fingerprint server) throws IOException {
        relays.get(i).close();
        return RelayProcess.start(relayDirs.get(i), relayAddresses.get(i), server);
    }

    /** The block files under a relay's store, once there are none or after {@code seconds}. */
    private static List<Path> blockFiles(Path store, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true) {
            List<Path> left;
            try (java.util.stream.Stream<Path> s = Files.walk(store)) {
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

    /** {@code fsp} as an operator runs it: a launcher script around this build's class path. */
    private Path fspLauncher() throws IOException {
        String classPath = System.getProperty("fsp.it.classpath", "");
        if (classPath.isBlank() || classPath.startsWith("${")) {
            classPath = System.getProperty("java.class.path");
        }
        Path launcher = dir.resolve("fsp");
        Files.writeString(launcher, "#!/bin/sh\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java")
                + "' -cp '" + classPath + "' io.fsp.cli.FspCli \"$@\"\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return launcher;
    }
}
