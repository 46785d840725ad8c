package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real aria2c: one file split over several control connections (REST + RETR at each
 * piece), a resumed download, and a download whose data connection is destroyed mid-file
 * ({@code ss -K}) and that aria2c finishes by reconnecting with REST. Each compares SHA-256.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class Aria2IT {
    /**
     * Outside the kernel's ephemeral range (32768-60999), so only servers bind these ports; drawn at
     * random so that two test runs on one machine are unlikely to share them.
     */
    private static final int PASSIVE_LOW = 61000 + 40 * new Random().nextInt(100);
    private static final int PASSIVE_HIGH = PASSIVE_LOW + 39;

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed()
            .with("--passive-ports", PASSIVE_LOW + "-" + PASSIVE_HIGH);

    @TempDir
    Path local;

    private ExternalTool aria2() {
        return ExternalTool.require("aria2c", "aria2", SERVER.transcript());
    }

    private List<String> options(String out, String... more) {
        List<String> args = new ArrayList<>(List.of("--quiet=true", "--console-log-level=error",
                "--log=" + local.resolve("aria2.log"), "--log-level=info",
                "--ftp-user=" + FtpServerExtension.USER, "--ftp-passwd=" + FtpServerExtension.PASSWORD,
                "--allow-overwrite=false", "--auto-file-renaming=false", "--connect-timeout=10", "--timeout=20",
                "-d", local.toString(), "-o", out));
        args.addAll(List.of(more));
        return args;
    }

    private String log() throws Exception {
        Path log = local.resolve("aria2.log");
        String text = Files.exists(log) ? Files.readString(log) : "";
        SERVER.transcript().add("aria2c log (requests only):\n"
                + text.lines().filter(l -> !l.contains("[DEBUG]")).reduce("", (a, b) -> a + b + "\n"));
        return text;
    }

    private static List<Long> restOffsets(String log) {
        List<Long> offsets = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^REST (\\d+)$").matcher(log);
        while (m.find()) {
            offsets.add(Long.parseLong(m.group(1)));
        }
        return offsets;
    }

    @Test
    void splitDownloadOverSeveralControlConnections() throws Exception {
        Path dir = SERVER.tree().dir("aria2-split");
        Path source = TestTree.write(dir.resolve("big.bin"), TestTree.randomBytes(24 * 1024 * 1024 + 5, 21));
        // Throttled so the transfer outlasts the other connections' logins (password hashing is
        // deliberately slow); unthrottled, the first connection fetches everything alone.
        List<String> args = options("split.bin", "-x4", "-s4", "-k1M", "--min-split-size=1M",
                "--max-download-limit=8M");
        args.add(SERVER.url("aria2-split/big.bin"));

        aria2().run(Duration.ofSeconds(80), args).assertSuccess();

        assertEquals(TestTree.sha256(source), TestTree.sha256(local.resolve("split.bin")));
        String log = log();
        long logins = log.lines().filter(l -> l.equals("USER ********")).count();
        assertTrue(logins >= 2, "several control connections logged in: " + logins);
        assertTrue(restOffsets(log).stream().anyMatch(o -> o > 0), () -> "pieces fetched with REST: " + restOffsets(log));
    }

    @Test
    void resumesPartialDownloadWithRest() throws Exception {
        Path dir = SERVER.tree().dir("aria2-resume");
        byte[] data = TestTree.randomBytes(6_000_000, 22);
        Path source = TestTree.write(dir.resolve("file.bin"), data);
        TestTree.write(local.resolve("file.bin"), java.util.Arrays.copyOf(data, 2_500_000));
        List<String> args = options("file.bin", "-c", "-x1", "-s1");
        args.add(SERVER.url("aria2-resume/file.bin"));

        aria2().run(Duration.ofSeconds(60), args).assertSuccess();

        assertEquals(TestTree.sha256(source), TestTree.sha256(local.resolve("file.bin")));
        // aria2c resumes at its piece boundary at or below the local length
        List<Long> offsets = restOffsets(log());
        assertTrue(offsets.stream().anyMatch(o -> o > 2_000_000L && o <= 2_500_000L), () -> "resumed near 2500000: " + offsets);
    }

    @Test
    void dataConnectionDestroyedMidFileIsResumed() throws Exception {
        ExternalTool ss = ExternalTool.require("ss", "iproute2", SERVER.transcript());
        Path dir = SERVER.tree().dir("aria2-drop");
        Path source = TestTree.write(dir.resolve("file.bin"), TestTree.randomBytes(32 * 1024 * 1024, 23));
        List<String> args = options("file.bin", "-x1", "-s1", "--max-download-limit=4M",
                "--max-tries=5", "--retry-wait=1");
        args.add(SERVER.url("aria2-drop/file.bin"));

        ExternalTool.Running download = aria2().start(args);
        List<String> killed = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 20_000;
        while (killed.isEmpty() && System.currentTimeMillis() < deadline && download.process().isAlive()) {
            Thread.sleep(300);
            killed.addAll(destroyServerDataConnections(ss));
        }
        assertFalse(killed.isEmpty(), "found the server's data connection to destroy");
        SERVER.transcript().add("destroyed " + killed);

        download.await(Duration.ofSeconds(70)).assertSuccess();

        assertEquals(TestTree.sha256(source), TestTree.sha256(local.resolve("file.bin")));
        String log = log();
        assertTrue(log.contains("errorCode="), "aria2c saw the connection break");
        assertTrue(restOffsets(log).stream().anyMatch(o -> o > 0), () -> "retried with REST: " + restOffsets(log));
        assertTrue(SERVER.server().isAlive());
        assertEquals(List.of(), SERVER.server().awaitNoOpenFilesUnder(dir, Duration.ofSeconds(5)),
                "the server closed the file of the broken transfer");
        try (ControlConnection c = ControlConnection.login(SERVER.server().ipv4(), FtpServerExtension.USER,
                FtpServerExtension.PASSWORD, SERVER.transcript())) {
            c.send("SIZE /aria2-drop/file.bin").assertCode(213);
        }
    }

    /** Destroys (ss -K) every established socket of the server process in its passive port range. */
    private List<String> destroyServerDataConnections(ExternalTool ss) throws Exception {
        String range = "sport >= :" + PASSIVE_LOW + " and sport <= :" + PASSIVE_HIGH;
        ExternalTool.Result sockets = ss.run(Duration.ofSeconds(10), "-H", "-t", "-n", "-p", "state", "established", range)
                .assertSuccess();
        List<String> killed = new ArrayList<>();
        for (String line : sockets.stdout().lines().toList()) {
            if (!line.contains("pid=" + SERVER.server().pid() + ",")) {
                continue;
            }
            String[] f = line.trim().split("\\s+");
            // Recv-Q Send-Q Local:Port Peer:Port users:(...)
            String localPort = f[2].substring(f[2].lastIndexOf(':') + 1);
            String peerPort = f[3].substring(f[3].lastIndexOf(':') + 1);
            ss.run(Duration.ofSeconds(10), "-K", "-t", "-n", "sport = :" + localPort + " and dport = :" + peerPort)
                    .assertSuccess();
            killed.add(f[2] + "<->" + f[3]);
        }
        return killed;
    }
}
