package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code fsp get} tells its user against a real server and relay: after a certificate that is not the trusted
 * one, a wrong password or a missing path it names the server and does not suggest a rerun (the same command would
 * fail the same way); {@code --verbose} prints the client's milestones, {@code --quiet} nothing but the result; on a
 * terminal the password is asked for without echo.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Tag("in-process-too")
class ClientMannersIT {
    /** Password files only their owner may read: the client refuses others. */
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private static final String OTHER_FINGERPRINT = "AB:" + "00:".repeat(30) + "CD";

    @TempDir
    static Path dir;
    private static StripeRig rig;
    private static Path password;

    @BeforeAll
    static void start() throws Exception {
        rig = StripeRig.start(dir.resolve("rig"), 64L << 20, new io.fsp.testkit.relay.Fault[0]);
        TreeDigests.random(rig.root().resolve("small.bin"), 300_000, 5);
        password = Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), StripeRig.PASSWORD + "\n");
    }

    @AfterAll
    static void stop() {
        rig.close();
    }

    private static String server() {
        return "127.0.0.1:" + rig.port();
    }

    private static List<String> get(String remote, String dest, String trust, Path passwordFile, String... more) {
        List<String> args = new ArrayList<>(List.of("get", "fsp://" + StripeRig.USER + "@" + server() + remote, "-o",
                dir.resolve(dest).toString(), "--config", "none", "--trust", trust, "--password-file", passwordFile.toString()));
        args.addAll(List.of(more));
        return args;
    }

    private static String trusted() {
        return rig.server().fingerprint().toString();
    }

    @Test
    void aCertificateThatIsNotTrustedNamesTheServerAndGivesNoResumeHint() {
        FspCommand.Result r = FspCommand.run(get("/small.bin", "untrusted.bin", OTHER_FINGERPRINT, password));
        assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
        assertTrue(r.err().contains("fsp get: " + server() + ": "), r.toString());
        assertFalse(r.err().contains("rerun"), "the same pin fails the same way: " + r);
    }

    @Test
    void aWrongPasswordGivesNoResumeHint() throws Exception {
        Path wrong = Files.writeString(Files.createFile(dir.resolve("wrong-password"), OWNER_ONLY), "not-it\n");
        FspCommand.Result r = FspCommand.run(get("/small.bin", "wrong-password.bin", trusted(), wrong));
        assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
        assertTrue(r.err().contains("login as " + StripeRig.USER) && r.err().contains("530"), r.toString());
        assertFalse(r.err().contains("rerun"), "the same password is refused again: " + r);
    }

    @Test
    void aMissingPathGivesNoResumeHint() {
        FspCommand.Result r = FspCommand.run(get("/no-such.bin", "missing.bin", trusted(), password));
        assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
        assertTrue(r.err().contains("FRET /no-such.bin"), r.toString());
        assertFalse(r.err().contains("rerun"), "the path is missing again on a rerun: " + r);
    }

    /** As a process: slf4j-simple reads the log level when the first logger is made, once per JVM. */
    @Test
    void verbosePrintsTheMilestonesAndQuietOnlyTheResult() throws Exception {
        String verbose = runProcess(get("/small.bin", "verbose.bin", trusted(), password, "--verbose"));
        assertTrue(verbose.contains("control connection secured") && verbose.contains("FRET answered 150"), verbose);
        String quiet = runProcess(get("/small.bin", "quiet.bin", trusted(), password, "--quiet"));
        assertFalse(quiet.contains("control connection secured"), quiet);
        assertTrue(quiet.contains("verified"), "the final line stays: " + quiet);
        assertEquals(TreeDigests.sha256(rig.root().resolve("small.bin")), TreeDigests.sha256(dir.resolve("quiet.bin")));
    }

    /**
     * On a real terminal (a pseudo-terminal from util-linux {@code script}): without --password-file or
     * $FSP_PASSWORD the password is asked for, not echoed, and the login with it goes through.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS) // beyond the watchdog's, so that a hang fails with what was seen
    void onATerminalThePasswordIsAskedWithoutEcho() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "util-linux script is needed for a terminal");
        List<String> args = new ArrayList<>(List.of("get", "fsp://" + StripeRig.USER + "@" + server() + "/small.bin", "-o",
                dir.resolve("prompted.bin").toString(), "--config", "none", "--trust", trusted()));
        ProcessBuilder fsp = FspCommand.process(args);
        String command = fsp.command().stream().map(a -> "'" + a.replace("'", "'\\''") + "'")
                .collect(java.util.stream.Collectors.joining(" "));
        ProcessBuilder pb = new ProcessBuilder("/usr/bin/script", "-qec", command, "/dev/null").redirectErrorStream(true);
        pb.environment().putAll(fsp.environment()); // the agent's directory and command lines, as bin/launch gives them
        pb.environment().remove("FSP_PASSWORD");
        Process p = pb.start();
        // the reads below block: a command that never prompts or never ends is killed, and the test fails saying so
        p.onExit().orTimeout(90, TimeUnit.SECONDS).exceptionally(e -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            return p;
        });
        StringBuilder seen = new StringBuilder();
        java.io.InputStream in = p.getInputStream();
        int c;
        while (!seen.toString().contains("Password for " + StripeRig.USER + "@127.0.0.1: ") && (c = in.read()) != -1) {
            seen.append((char) c);
        }
        p.getOutputStream().write((StripeRig.PASSWORD + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        p.getOutputStream().flush();
        seen.append(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "fsp get ended: " + seen);
        assertEquals(0, p.exitValue(), seen.toString());
        assertFalse(seen.toString().contains(StripeRig.PASSWORD), "the password was echoed: " + seen);
        assertEquals(TreeDigests.sha256(rig.root().resolve("small.bin")), TreeDigests.sha256(dir.resolve("prompted.bin")));
    }

    private static String runProcess(List<String> args) throws Exception {
        Path log = Files.createTempFile(dir, "fsp", ".log");
        Process p = FspCommand.process(args).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "fsp get ended");
        String output = Files.readString(log);
        assertEquals(0, p.exitValue(), output);
        return output;
    }
    /** {@code -o} naming a directory puts the file in it under its own name, as cp and scp do ({@code -o .}). */
    @Test
    void aFileGoesIntoTheDirectoryDashONames() throws Exception {
        Path into = Files.createDirectories(dir.resolve("into"));
        FspCommand.Result r = FspCommand.run(get("/small.bin", "into/.", trusted(), password));
        assertEquals(ExitCodes.OK, r.exit(), r.toString());
        assertEquals(TreeDigests.sha256(rig.root().resolve("small.bin")), TreeDigests.sha256(into.resolve("small.bin")));
        try (var left = Files.list(into)) {
            assertEquals(List.of("small.bin"), left.map(p -> p.getFileName().toString()).toList(), "no journal, lock or part left");
        }
        try (var beside = Files.list(dir)) {
            assertEquals(List.of(), beside.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".into.")).toList());
        }
    }

    @Test
    void aDirectoryInTheFilesWayIsRefusedBeforeAnythingIsWritten() throws Exception {
        Path in = Files.createDirectories(dir.resolve("taken/small.bin"));
        FspCommand.Result r = FspCommand.run(get("/small.bin", "taken", trusted(), password));
        assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
        assertTrue(r.err().contains("fsp get: " + in + " is a directory: the file small.bin cannot take its place;"
                + " choose another -o"), r.toString());
        assertFalse(r.err().contains("rerun"), "the same command fails the same way: " + r);
        try (var left = Files.list(dir.resolve("taken"))) {
            assertEquals(List.of("small.bin"), left.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void aTreeIntoAFileIsRefusedAndTheFileKept() throws Exception {
        Path tree = Files.createDirectories(rig.root().resolve("tree"));
        TreeDigests.random(tree.resolve("a.bin"), 1000, 6);
        Path file = Files.writeString(dir.resolve("plain-file"), "keep me\n");
        FspCommand.Result r = FspCommand.run(get("/tree", "plain-file", trusted(), password));
        assertEquals(ExitCodes.FAILURE, r.exit(), r.toString());
        assertTrue(r.err().contains(file + " is not a directory: a tree (/tree) needs one; choose another -o"), r.toString());
        assertFalse(r.err().contains("rerun"), r.toString());
        assertEquals("keep me\n", Files.readString(file));
        try (var beside = Files.list(dir)) {
            assertEquals(List.of(), beside.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".plain-file.")).toList());
        }
    }
}
