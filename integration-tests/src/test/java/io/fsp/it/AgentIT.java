package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fsp} with its agent, as bin/fsp runs it: the native launcher, real processes, a real server and relays. Each
 * test has an agent directory of its own and stops its agents at the end.
 */
class AgentIT {
    private static final Pattern PID = Pattern.compile("fsp-agent pid (\\d+)");

    @TempDir
    Path dir;

    private final List<Path> agentDirs = new ArrayList<>();

    @AfterEach
    void stopAgents() throws Exception {
        for (Path d : agentDirs) {
            run(d, Map.of(), dir, "agent", "stop");
        }
    }

    /** Commands from two directories, with their own passwords and relative paths, run in one agent. */
    @Test
    void commandsKeepTheirOwnDirectoryEnvironmentAndExitCodeInOneAgent() throws Exception {
        Path agent = agentDir("agent");
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, new Fault[0], new Fault[0])) {
            Path file = rig.root().resolve("data.bin");
            TreeDigests.random(file, 3 * 1024 * 1024 + 17, 5);
            Path a = Files.createDirectories(dir.resolve("a"));
            Path b = Files.createDirectories(dir.resolve("b"));

            Result first = run(agent, Map.of("FSP_PASSWORD", StripeRig.PASSWORD), a, get(rig, "/data.bin", "copy.bin"));
            assertEquals(0, first.exit, first.toString());
            assertTrue(first.out.contains("verified " + Files.size(file) + " bytes"), first.toString());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(a.resolve("copy.bin")), "-o copy.bin is in a/");
            long pid = agentPid(agent);
            assertEquals("fsp-agent", Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip());

            Result refused = run(agent, Map.of("FSP_PASSWORD", "not-the-password"), b, get(rig, "/data.bin", "copy.bin"));
            assertEquals(1, refused.exit, "this command's own password, not the last one's: " + refused);
            assertFalse(Files.exists(b.resolve("copy.bin")), refused.toString());

            Result second = run(agent, Map.of("FSP_PASSWORD", StripeRig.PASSWORD), b, get(rig, "/data.bin", "copy.bin"));
            assertEquals(0, second.exit, second.toString());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(b.resolve("copy.bin")), "-o copy.bin is in b/");
            assertEquals(pid, agentPid(agent), "one agent ran every command");
        }
    }

    /** What a command prints and returns is what it prints and returns in a process of its own. */
    @Test
    void aCommandReadsAsInItsOwnProcess() throws Exception {
        Path agent = agentDir("agent");
        for (List<String> args : List.of(List.of("get", "fsp://alice@127.0.0.1:1/x"), List.of("get", "--help"),
                List.of("--version"), List.of("collect", "--streams", "0", "m.manifest", "-o", "out"))) {
            Result viaAgent = run(agent, Map.of(), dir, args.toArray(String[]::new));
            ProcessBuilder alone = FspCommand.inProcess(args).directory(dir.toFile());
            alone.environment().put("FSP_CONFIG", "none");
            Result inProcess = finish(alone.start());
            assertEquals(inProcess.exit, viaAgent.exit, args + ": " + viaAgent + "\nin-process: " + inProcess);
            assertEquals(inProcess.out, viaAgent.out, args.toString());
            assertEquals(inProcess.err, viaAgent.err, args.toString());
        }
        agentPid(agent); // they ran in the agent
    }

    /** kill -9 of the agent mid-transfer: the command says so, and the same command resumes from the journal. */
    @Test
    void anAgentKilledMidTransferLosesNoVerifiedBlock() throws Exception {
        Path agent = agentDir("agent");
        try (StripeRig rig = slowRig()) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 31);
            Path dest = dir.resolve("big.copy");
            Process client = startMidway(agent, rig, dest);
            long pid = agentPid(agent);
            killAgent(agent, pid);
            Result killed = finishMidway(client);
            assertEquals(1, killed.exit, killed.toString());
            assertTrue(killed.err.contains("the agent ended before the command did")
                    && killed.err.contains("rerun the same command to resume"), killed.toString());

            Result rerun = run(agent, Map.of("FSP_PASSWORD", StripeRig.PASSWORD), dir, getJson(rig, dest));
            assertEquals(0, rerun.exit, rerun.toString());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            assertTrue(journalBlocks(rerun.out) > 0, "blocks taken from the journal: " + rerun.out);
            assertNotEquals(pid, agentPid(agent), "a new agent ran the rerun");
        }
    }

    /** SIGTERM (as Ctrl-C) cancels the command in the agent, which stays; a rerun resumes. */
    @Test
    void aSignalCancelsTheCommandAndARerunResumes() throws Exception {
        Path agent = agentDir("agent");
        try (StripeRig rig = slowRig()) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 32);
            Path dest = dir.resolve("big.copy");
            Process client = startMidway(agent, rig, dest);
            long pid = agentPid(agent);
            client.destroy();
            Result cancelled = finishMidway(client);
            assertEquals(130, cancelled.exit, cancelled.toString());
            assertTrue(cancelled.err.contains("fsp get: interrupted; rerun the same command to resume ("
                    + journal(dest) + ")"), cancelled.toString());
            assertEquals(pid, agentPid(agent), "the agent outlives a cancelled command");

            Result rerun = run(agent, Map.of("FSP_PASSWORD", StripeRig.PASSWORD), dir, getJson(rig, dest));
            assertEquals(0, rerun.exit, rerun.toString());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            assertTrue(journalBlocks(rerun.out) > 0, "blocks taken from the journal: " + rerun.out);
        }
    }

    /** --detach: an id at once; status shows it running; cancel stops it; the same command detached again resumes. */
    @Test
    void aDetachedTransferIsWatchedCancelledResumedAndWaitedFor() throws Exception {
        Path agent = agentDir("agent");
        try (StripeRig rig = slowRig()) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 33);
            Path dest = dir.resolve("big.copy");
            Map<String, String> password = Map.of("FSP_PASSWORD", StripeRig.PASSWORD);
            List<String> detached = new ArrayList<>(List.of(getJson(rig, dest)));
            detached.add("--detach");
            Result started = run(agent, password, dir, detached.toArray(String[]::new));
            assertEquals(0, started.exit, started.toString());
            String id = idOf(started.out);
            awaitJournal(dest);
            Result status = run(agent, Map.of(), dir, "status", id);
            assertEquals(0, status.exit, status.toString());
            assertTrue(status.out.startsWith(id + "  running, ") && status.out.contains(" MiB")
                    && status.out.contains(" blocks on disk, 0 recovered"), status.toString());

            Result cancelled = run(agent, Map.of(), dir, "cancel", id);
            assertEquals(0, cancelled.exit, cancelled.toString());
            assertTrue(run(agent, Map.of(), dir, "status", id).out.startsWith(id + "  cancelled (exit 130)"));
            assertEquals(130, run(agent, Map.of(), dir, "wait", id).exit, "wait gives the transfer's own code");

            String again = idOf(run(agent, password, dir, detached.toArray(String[]::new)).out);
            Result waited = run(agent, Map.of(), dir, "wait", again);
            assertEquals(0, waited.exit, waited.toString());
            assertTrue(journalBlocks(waited.out) > 0, "the rerun took the cancelled run's blocks: " + waited.out);
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
        }
    }

    /** A managed transfer whose agent was killed shows as interrupted, with the command that resumes it. */
    @Test
    void aTransferWhoseAgentWasKilledShowsAsInterrupted() throws Exception {
        Path agent = agentDir("agent");
        try (StripeRig rig = slowRig()) {
            TreeDigests.random(rig.root().resolve("big.bin"), 6 * 1024 * 1024 + 5, 34);
            Path dest = dir.resolve("big.copy");
            List<String> detached = new ArrayList<>(List.of(getJson(rig, dest)));
            detached.add("--detach");
            String id = idOf(run(agent, Map.of("FSP_PASSWORD", StripeRig.PASSWORD), dir, detached.toArray(String[]::new)).out);
            awaitJournal(dest);
            killAgent(agent, agentPid(agent));
            Result status = run(agent, Map.of(), dir, "status");
            assertTrue(status.out.contains(id + "  interrupted") && status.out.contains("to resume: cd " + dir),
                    status.toString());
            Result waited = run(agent, Map.of(), dir, "wait", id);
            assertEquals(1, waited.exit, waited.toString());
            assertTrue(waited.err.contains("is interrupted; to resume"), waited.toString());
        }
    }

    /** An agent with nothing to do exits after its idle time. */
    @Test
    void anIdleAgentExits() throws Exception {
        Path agent = agentDir("agent");
        Result started = run(agent, Map.of("FSP_AGENT_IDLE", "1s"), dir, "agent", "start");
        assertEquals(0, started.exit, started.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Result status;
        do {
            Thread.sleep(200);
            status = run(agent, Map.of(), dir, "agent", "status");
        } while (status.exit == 0 && System.nanoTime() < deadline);
        assertEquals(1, status.exit, "gone after its idle time: " + status);
        assertFalse(Files.exists(agent.resolve(socketName(agent))), "and its socket with it");
    }

    /**
     * The native launcher finds the agent by its own hash of the world: with the Java launcher made to fail, a warm
     * command still runs. (Were the two hashes to differ, the native launcher would hand every command to Java.)
     */
    @Test
    void theNativeLauncherFindsTheAgentTheJavaLauncherStarted() throws Exception {
        Path agent = agentDir("agent");
        assertEquals(0, run(agent, Map.of(), dir, "agent", "start").exit);
        Result warm = run(agent, Map.of("FSP_JAVA_LAUNCHER", "/bin/false"), dir, "--version");
        assertEquals(0, warm.exit, warm.toString());
        assertTrue(warm.out.startsWith("fsp "), warm.toString());
    }

    /** A command from another network namespace (or mount namespace) never reaches an agent outside it. */
    @Test
    void aCommandInAnotherNamespaceHasAnAgentOfItsOwn() throws Exception {
        Path agent = agentDir("agent");
        String ns = "fsp-agent-it-" + ProcessHandle.current().pid();
        assertEquals(0, new ProcessBuilder("ip", "netns", "add", ns).inheritIO().start().waitFor(), "ip netns add (root)");
        Process holder = null;
        try {
            // One process in the namespace holds it; commands join its network and mount namespaces with nsenter.
            holder = new ProcessBuilder("ip", "netns", "exec", ns, "sleep", "600").start();
            long holderPid = holder.pid();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (netnsOf(holderPid).equals(netnsOf(ProcessHandle.current().pid())) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(0, run(agent, Map.of(), dir, "agent", "start").exit);
            long outside = agentPid(agent);
            Result inside = run(agent, Map.of(), dir, List.of("nsenter", "-t", Long.toString(holderPid), "-n", "-m", "--"),
                    "agent", "start");
            assertEquals(0, inside.exit, inside.toString());
            long insidePid = pidOf(inside.out);
            assertNotEquals(outside, insidePid, "the namespace's own agent");
            assertEquals(netnsOf(holderPid), netnsOf(insidePid), "it runs in that namespace");
            assertEquals(outside, agentPid(agent), "the agent outside is untouched");
            run(agent, Map.of(), dir, List.of("nsenter", "-t", Long.toString(holderPid), "-n", "-m", "--"), "agent", "stop");
        } finally {
            if (holder != null) {
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            new ProcessBuilder("ip", "netns", "delete", ns).inheritIO().start().waitFor();
        }
    }

    /** A process of another user that reaches the socket (its directory opened up here on purpose) is refused. */
    @Test
    void aPeerOfAnotherUserIsRefused() throws Exception {
        Path open = Files.createTempDirectory(Path.of("/tmp"), "fsp-agent-it-");
        Path agent = open.resolve("agent");
        agentDirs.add(agent);
        try {
            assertEquals(0, run(agent, Map.of(), dir, "agent", "start").exit);
            String socket = socketName(agent);
            Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx--x--x"));
            Files.setPosixFilePermissions(agent.resolve(socket), PosixFilePermissions.fromString("rw-rw-rw-"));
            // As nobody: connect, send a well-formed HELLO asking for the status, and print what comes back.
            String script = """
                    import socket, struct, sys
                    def s(x): b = x.encode(); return struct.pack('>i', len(b)) + b
                    key = sys.argv[2]
                    p = struct.pack('>i', 1) + s(key) + s('/') + struct.pack('>iiiii', 0, 0, 0, 1, 2) + s('agent') + s('status') + struct.pack('>i', 0)
                    c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])
                    try:
                        c.sendall(b'H' + struct.pack('>i', len(p)) + p)
                        got = c.recv(65536)
                    except (BrokenPipeError, ConnectionResetError):
                        got = b''
                    print('answered' if got else 'closed')
                    """;
            Process p = new ProcessBuilder("runuser", "-u", "nobody", "--", "python3", "-c", script,
                    agent.resolve(socket).toString(), socket.replace(".sock", "")).redirectErrorStream(true).start();
            Result asNobody = finish(p);
            assertEquals("closed", asNobody.out.strip(), asNobody.toString());
            assertTrue(Files.readString(agent.resolve(socket.replace(".sock", ".log")))
                    .contains("refused a connection from user nobody"), "the agent's log says so");
            Result opened = run(agent, Map.of(), dir, "agent", "status");
            assertEquals(1, opened.exit, "a launcher does not use a directory others may enter: " + opened);
            assertTrue(opened.err.contains("is not private"), opened.toString());
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
            Result mine = run(agent, Map.of(), dir, "agent", "status");
            assertEquals(0, mine.exit, "its own user is served: " + mine);
        } finally {
            Files.setPosixFilePermissions(agent, PosixFilePermissions.fromString("rwx------"));
        }
    }

    // --- helpers

    private Path agentDir(String name) {
        Path d = dir.resolve(name);
        agentDirs.add(d);
        return d;
    }

    private StripeRig slowRig() throws Exception {
        Fault[] slow = {new Fault.Throttle(700_000)};
        return StripeRig.start(dir.resolve("rig"), 64L << 20, slow, slow, slow);
    }

    private static String[] get(StripeRig rig, String remote, String dest) {
        return new String[] {"get", "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port() + remote, "-o", dest,
                "--trust", rig.server().fingerprint().toString()};
    }

    private static String[] getJson(StripeRig rig, Path dest) {
        return new String[] {"get", "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port() + "/big.bin", "-o",
                dest.toString(), "--trust", rig.server().fingerprint().toString(), "--block-size", "64k", "--json"};
    }

    /**
     * Starts a get through the agent and returns it once it has journaled some blocks; its output goes to files
     * ({@link #finish} reads them), since a signal sent with {@link Process#destroy} closes the process's pipes.
     */
    private Process startMidway(Path agent, StripeRig rig, Path dest) throws Exception {
        ProcessBuilder pb = FspCommand.agentProcess(agent, List.of(getJson(rig, dest))).directory(dir.toFile())
                .redirectOutput(dir.resolve("midway.out").toFile()).redirectError(dir.resolve("midway.err").toFile());
        pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
        Process client = pb.start();
        Path journal = journal(dest);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(journal) && Files.size(journal) > 2000) && client.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(client.isAlive(), "the run ended before it journaled some blocks");
        return client;
    }

    /**
     * kill -9 of the agent in {@code agent}, returned once its socket takes no connection: while a killed JVM's threads
     * tear down, its socket may still take one that then ends with nothing said, which a rerun reports as the agent
     * ending under it (as it would for a user who reran in that moment).
     */
    private static void killAgent(Path agent, long pid) throws Exception {
        new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
        Path socket = agent.resolve(socketName(agent));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try (var ch = java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                ch.connect(java.net.UnixDomainSocketAddress.of(socket));
            } catch (IOException refused) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the agent " + pid + " still took connections 20 s after kill -9");
    }

    private static String idOf(String started) {
        Matcher m = Pattern.compile("transfer ([0-9a-f]{8}) started").matcher(started);
        assertTrue(m.find(), started);
        return m.group(1);
    }

    private static void awaitJournal(Path dest) throws Exception {
        Path journal = journal(dest);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(journal) && Files.size(journal) > 2000) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(journal), "the transfer journaled some blocks");
    }

    private static Path journal(Path dest) {
        return dest.resolveSibling("." + dest.getFileName() + ".fsp-journal");
    }

    private static long journalBlocks(String json) {
        Matcher m = Pattern.compile("\"journal\":(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private long agentPid(Path agent) throws Exception {
        Result status = run(agent, Map.of(), dir, "agent", "status");
        assertEquals(0, status.exit, "an agent runs: " + status);
        return pidOf(status.out);
    }

    private static long pidOf(String text) {
        Matcher m = PID.matcher(text);
        assertTrue(m.find(), text);
        return Long.parseLong(m.group(1));
    }

    private static String netnsOf(long pid) throws IOException {
        return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "net")).toString();
    }

    private static String socketName(Path agent) throws IOException {
        try (var files = Files.list(agent)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".sock")).findFirst().orElse("none");
        }
    }

    private record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out ---\n" + out + "\n--- err ---\n" + err;
        }
    }

    private static Result run(Path agent, Map<String, String> env, Path cwd, String... args) throws Exception {
        return run(agent, env, cwd, List.of(), args);
    }

    /** Runs the launcher with {@code prefix} before it (nsenter …), in {@code cwd}, with {@code env} added. */
    private static Result run(Path agent, Map<String, String> env, Path cwd, List<String> prefix, String... args)
            throws Exception {
        ProcessBuilder pb = FspCommand.agentProcess(agent, List.of(args)).directory(cwd.toFile());
        List<String> command = new ArrayList<>(prefix);
        command.addAll(pb.command());
        pb.command(command);
        pb.environment().putAll(env);
        return finish(pb.start());
    }

    private Result finishMidway(Process p) throws Exception {
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the command ended");
        return new Result(p.exitValue(), Files.readString(dir.resolve("midway.out")), Files.readString(dir.resolve("midway.err")));
    }

    private static Result finish(Process p) throws Exception {
        p.getOutputStream().close();
        var out = new java.util.concurrent.CompletableFuture<String>();
        Thread reader = new Thread(() -> {
            try {
                out.complete(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                out.completeExceptionally(e);
            }
        });
        reader.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the command ended");
        return new Result(p.exitValue(), out.get(30, TimeUnit.SECONDS), err);
    }
}
