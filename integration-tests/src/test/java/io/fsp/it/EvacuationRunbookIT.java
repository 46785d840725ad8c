package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.Runbook;
import io.fsp.it.harness.TreeDigests;
import java.io.IOException;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evacuation runbook (docs/runbooks/evacuation.md) run as written: its {@code sh} blocks, found by their
 * {@code <!-- step: NAME -->} comments, in order, from nothing, with the variables of its table pointing at
 * directories and loopback ports here, and {@code bin/fsp}, {@code bin/fsp-server}, {@code bin/fsp-relay} as
 * launchers of this build. The runbook starts three relays and the origin, practises an evacuation and a collection,
 * then evacuates a tree of many small files and a large one; the test then brings the disaster — the origin and one
 * relay killed, another restarted by the runbook's own step — and the safe site checks, collects byte-identical,
 * validates the bag and releases what is left, the dead relay's copies once it is back.
 */
class EvacuationRunbookIT {
    private static final Pattern FINGERPRINT = Pattern.compile("([0-9A-F]{2}(?::[0-9A-F]{2}){31})");
    private static final Pattern RELAY_LISTENING = Pattern.compile("fsp-relay: listening on [0-9.:]+, certificate sha256 "
            + FINGERPRINT.pattern());

    @TempDir
    Path dir;

    private Path site;
    /** Every daemon the runbook started, read from its pid file once started: a restart rewrites the file. */
    private final List<Long> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    @Test
    void theRunbookRunsAsWrittenThroughPracticeEvacuationDisasterCollectionAndRelease() throws Exception {
        site = Files.createDirectories(dir.resolve("site"));
        launchers();
        Path root = dir.resolve("root");
        Path archive = root.resolve("archive");
        dataSet(archive);
        Path safe = Files.createDirectories(dir.resolve("safe"));
        Path carry = Files.createDirectories(dir.resolve("carry"));
        Path originState = dir.resolve("origin-state");
        Runbook runbook = Runbook.load("evacuation");

        Map<String, String> env = new HashMap<>();
        env.put("SAFE", safe.toString());
        env.put("CARRY", carry.toString());
        env.put("ORIGIN_STATE", originState.toString());
        env.put("ORIGIN_ROOT", root.toString());
        String listen = "127.0.0.1:" + freePort();
        env.put("ORIGIN_LISTEN", listen);
        env.put("ORIGIN", "fsp://ops@" + listen + "/archive");
        env.put("FSP_PASSWORD", "evacuate me");
        env.put("RELAY_SPACE", "256M");

        // 0: the safe site's keys, the origin's fingerprint, three relays trusting it, the origin with the relays
        ok(runbook.run("keygen", env, site, 120));
        Runbook.Outcome fp = ok(runbook.run("origin-fingerprint", env, site, 120));
        env.put("ORIGIN_FP", last(FINGERPRINT, fp.output()));
        List<Map<String, String>> relays = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Map<String, String> relay = new HashMap<>(env);
            relay.put("RELAY_DIR", dir.resolve("relay" + i).toString());
            relay.put("RELAY_LISTEN", "127.0.0.1:" + freePort());
            relays.add(relay);
            Runbook.Outcome up = daemon(runbook.run("relay", relay, site, 120), "relay" + i + "/relay.pid");
            env.put("RELAY" + (i + 1), relay.get("RELAY_LISTEN") + "=" + last(RELAY_LISTENING, up.output()));
        }
        daemon(runbook.run("origin", env, site, 120), "origin-state/server.pid");

        // the practice: evacuated, collected whole, released
        Map<String, String> expected = TreeDigests.of(archive);
        ok(runbook.run("practice-evacuate", env, site, 300));
        Runbook.Outcome practice = ok(runbook.run("practice-collect", env, site, 300));
        assertTrue(practice.output().contains("practice bag verified"), practice.toString());
        assertEquals(expected, TreeDigests.of(safe.resolve("practice/data")), practice.toString());
        ok(runbook.run("practice-release", env, site, 120));
        for (Map<String, String> relay : relays) {
            assertEquals(List.of(), blockFiles(Path.of(relay.get("RELAY_DIR")), 10), "after the practice's release");
        }

        // 1: the emergency: the priority list, the dry run, the evacuation
        ok(runbook.run("priority", env, site, 60));
        ok(runbook.run("dry-run", env, site, 300));
        Runbook.Outcome evacuated = ok(runbook.run("evacuate", env, site, 300));
        assertTrue(Files.size(carry.resolve("evacuation.sealed")) > 0, evacuated.toString());

        // the disaster: the origin is gone, relay 0 is gone, relay 1 restarts (the runbook's step, as its operator would)
        kill(originState.resolve("server.pid"));
        kill(dir.resolve("relay0/relay.pid"));
        stop(dir.resolve("relay1/relay.pid"));
        daemon(runbook.run("relay", relays.get(1), site, 120), "relay1/relay.pid");

        // 2-4: the safe site checks, collects from the relays that are left and validates the bag
        ok(runbook.run("check", env, site, 300));
        Runbook.Outcome collected = ok(runbook.run("collect", env, site, 300));
        assertEquals(expected, TreeDigests.of(safe.resolve("archive/data")), collected.toString());
        // every block collected was confirmed to the relays left, which freed it (relay 0 is gone with its copies)
        for (int i = 1; i < 3; i++) {
            assertEquals(List.of(), blockFiles(Path.of(relays.get(i).get("RELAY_DIR")), 10),
                    "relay " + i + " still holds blocks: " + collected);
        }
        Runbook.Outcome bag = ok(runbook.run("bag", env, site, 120));
        assertTrue(bag.output().contains("bag verified"), bag.toString());

        // 5: release: relay 0 is down (exit 5: run again later); back, it frees its copies at the second run
        Runbook.Outcome down = runbook.run("release", env, site, 120);
        System.out.println(down);
        assertEquals(5, down.exitCode(), down.toString());
        daemon(runbook.run("relay", relays.get(0), site, 120), "relay0/relay.pid");
        ok(runbook.run("release", env, site, 120));
        assertEquals(List.of(), blockFiles(Path.of(relays.get(0).get("RELAY_DIR")), 10), "relay 0 after release");
        assertEquals(java.util.Set.of(), java.util.Set.copyOf(runbook.notRun()), "every step of the runbook ran: " + runbook);
    }

    private Runbook.Outcome ok(Runbook.Outcome o) throws IOException {
        System.out.println(o); // the operator's view of each step, in the test's report
        if (o.exitCode() != 0) {
            assertEquals(0, o.exitCode(), o + daemonLogs());
        }
        return o;
    }

    /** A step that started a daemon: its pid, from {@code pidFile} (under the test's directory), for the clean-up. */
    private Runbook.Outcome daemon(Runbook.Outcome o, String pidFile) throws IOException {
        Path pid = dir.resolve(pidFile);
        if (Files.exists(pid)) {
            started.add(Long.parseLong(Files.readString(pid).strip()));
        }
        return ok(o);
    }

    /** The logs the runbook's relays and server write, for a failed step's report. */
    private String daemonLogs() throws IOException {
        StringBuilder logs = new StringBuilder();
        try (Stream<Path> s = Files.walk(dir, 2)) {
            for (Path log : s.filter(p -> p.toString().endsWith("relay.log") || p.toString().endsWith("server.log")).toList()) {
                logs.append("\n--- ").append(log).append(" ---\n").append(Files.readString(log));
            }
        }
        return logs.toString();
    }

    private static String last(Pattern p, String output) {
        String found = null;
        for (Matcher m = p.matcher(output); m.find(); ) {
            found = m.group(1);
        }
        assertTrue(found != null, "no " + p + " in:\n" + output);
        return found;
    }

    /**
     * A data set as an evacuation meets it: the names the runbook's priority list gives (a directory of nested small
     * files, one with blanks in its name), an empty directory and a large file.
     */
    private static void dataSet(Path archive) throws Exception {
        Random random = new Random(14);
        for (int i = 0; i < 120; i++) {
            Path f = archive.resolve("registry/d" + (i % 7) + "/f " + i + ".txt");
            Files.createDirectories(f.getParent());
            TreeDigests.random(f, random.nextInt(20_000), i);
        }
        for (int i = 0; i < 5; i++) {
            Path f = archive.resolve("minutes 2026/meeting " + i + ".txt");
            Files.createDirectories(f.getParent());
            TreeDigests.random(f, random.nextInt(50_000), 1000 + i);
        }
        Files.createDirectories(archive.resolve("empty-dir"));
        TreeDigests.random(archive.resolve("big.bin"), 8 * 1024 * 1024 + 17, 99);
    }

    /** The block files under a relay's store, once there are none or after {@code seconds}. */
    private static List<Path> blockFiles(Path relayDir, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true) {
            List<Path> left;
            try (Stream<Path> s = Files.walk(relayDir.resolve("blocks"))) {
                left = s.filter(p -> p.getFileName().toString().endsWith(".blk")).toList();
            }
            if (left.isEmpty() || System.nanoTime() > deadline) {
                return left;
            }
            Thread.sleep(100);
        }
    }

    /** Ends the process whose pid the runbook wrote to {@code pidFile} at once (SIGKILL), as a lost machine ends. */
    private static void kill(Path pidFile) throws IOException {
        end(pidFile, true);
    }

    /** Stops it as its operator would (SIGTERM), waiting for its end. */
    private static void stop(Path pidFile) throws IOException {
        end(pidFile, false);
    }

    private static void end(Path pidFile, boolean now) throws IOException {
        if (!Files.exists(pidFile)) {
            return;
        }
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        ProcessHandle.of(pid).ifPresent(p -> {
            if (now) {
                p.destroyForcibly();
            } else {
                p.destroy();
            }
            try {
                p.onExit().get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        });
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * {@code bin/fsp}, {@code bin/fsp-server} and {@code bin/fsp-relay} in the directory the steps run in, as an
     * operator has them in the distribution: launchers of this build's class path.
     */
    private void launchers() throws IOException {
        String classPath = System.getProperty("fsp.it.classpath", "");
        if (classPath.isBlank() || classPath.startsWith("${")) {
            classPath = System.getProperty("java.class.path");
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String daemonOptions = System.getProperty("fsp.it.serverJavaOptions", "").trim();
        Path bin = Files.createDirectories(site.resolve("bin"));
        launcher(bin.resolve("fsp"), java, "", classPath, "io.fsp.cli.FspCli");
        launcher(bin.resolve("fsp-server"), java, daemonOptions, classPath, "io.fsp.server.ServerCommand");
        launcher(bin.resolve("fsp-relay"), java, daemonOptions, classPath, "io.fsp.relay.RelayCommand");
    }

    private static void launcher(Path file, String java, String options, String classPath, String main) throws IOException {
        Files.writeString(file, "#!/bin/sh\nexec '" + java + "' " + options + " -cp '" + classPath + "' " + main
                + " \"$@\"\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
