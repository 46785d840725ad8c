package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.Fret;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.Reply;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.Transcript;
import io.fsp.it.harness.TreeDigests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A volunteer's relay joins a running {@code fsp-server} process with one command: the operator's {@code fsp-server
 * invite} prints a code, {@code fsp-relay join CODE SERVER} (run beside a relay started trusting no server) pins both
 * certificates, and the next {@code fsp get} stripes through the relay and verifies, with no restart of either. The
 * same code again, a revoked one and a wrong one are refused and change nothing; {@code fsp-server relays remove}
 * takes the relay out of the next transfer.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class JoinIT {
    @TempDir
    Path dir;
    Path config;
    final Transcript transcript = new Transcript();
    ServerProcess server;
    RelayProcess volunteer;

    @BeforeEach
    void start() throws Exception {
        Path root = dir.resolve("root");
        Files.createDirectories(root);
        TreeDigests.random(root.resolve("data.bin"), 4 << 20, 3);
        config = dir.resolve("server.conf");
        // No relay line: the server's only relay is the one that joins.
        Files.write(config, List.of("listen = 127.0.0.1:0", "root = " + root,
                "user = " + StripeRig.USER + ":" + StripeRig.PASSWORD, "state-dir = " + dir.resolve("state"),
                "allow-plain-login = true", "fsp-without-tls = true", "login-failure-delay = 0s"));
        server = ServerProcess.start(root, List.of("--config", config.toString()), 1);
        volunteer = RelayProcess.withoutTrust(dir.resolve("volunteer"));
        assertTrue(volunteer.output().contains("trusting no server yet"), volunteer.output());
    }

    @AfterEach
    void stop() {
        if (volunteer != null) {
            volunteer.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aRelayJoinsWithOneCommandAndLeavesWithAnother() throws Exception {
        String code = invite();
        FspCommand.Result joined = join(code);
        assertEquals(0, joined.exit(), joined + "\n" + server.output());
        assertTrue(joined.out().contains("fsp-relay: joined 127.0.0.1:" + server.port()), joined.out());
        await(() -> server.output().contains("invite " + code.substring(0, 4) + " used, relay"), "the join logged");
        assertTrue(server.output().contains("invite " + code.substring(0, 4) + " issued"), server.output());
        assertEquals(List.of(volunteerLine()), servers("relays", "list").out().lines().toList());
        assertTrue(announcedRelayPorts().contains(volunteer.address().getPort()), server.output());

        Path copy = dir.resolve("data.copy");
        // The FRET above placed blocks nobody collects: they are freed at the relay once its session ended.
        await(() -> server.output().contains(": aborted at 1 of its 1 relays, its blocks there freed"), "the abort");
        int logged = server.output().length();
        ProcessBuilder get = FspCommand.inProcess(List.of("get", "fsp://" + StripeRig.USER + "@127.0.0.1:" + server.port()
                + "/data.bin", "-o", copy.toString(), "--trust", server.certificateFingerprint(), "--block-size", "256k"));
        get.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
        Process client = get.redirectErrorStream(true).start();
        String getOutput = new String(client.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(client.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, client.exitValue(), getOutput + "\n" + server.output() + "\n" + volunteer.output());
        assertEquals(TreeDigests.sha256(server.root().resolve("data.bin")), TreeDigests.sha256(copy));
        // The client collected every block: its end is logged as such, not as an abort that freed blocks.
        await(() -> server.output().substring(logged).matches("(?s).*(: over at |blocks there freed).*"), "its end");
        assertTrue(server.output().substring(logged).contains(": over at its 1 relays, nothing of it left there"),
                server.output());
        assertFalse(server.output().substring(logged).contains("blocks there freed"), server.output());

        FspCommand.Result replayed = join(code);
        assertEquals(1, replayed.exit(), replayed.toString());
        assertTrue(replayed.err().contains("is used") && replayed.err().contains("nothing changed"), replayed.err());

        String revoked = invite();
        FspCommand.Result revoke = servers("invite", "--revoke", revoked.substring(0, 4));
        assertEquals(0, revoke.exit(), revoke.toString());
        await(() -> server.output().contains("invite " + revoked.substring(0, 4) + " revoked"), "the revocation logged");
        FspCommand.Result refused = join(revoked);
        assertEquals(1, refused.exit(), refused.toString());
        assertTrue(refused.err().contains("is revoked"), refused.err());

        String open = invite();
        String wrong = open.substring(0, 5) + (open.charAt(5) == 'A' ? 'B' : 'A') + open.substring(6);
        byte[] trustedBefore = Files.readAllBytes(volunteer.stateDir().resolve("joined-servers"));
        FspCommand.Result mismatch = join(wrong);
        assertEquals(1, mismatch.exit(), mismatch.toString());
        assertTrue(mismatch.err().contains("does not match") && !mismatch.err().contains(open.substring(5)), mismatch.err());
        assertTrue(java.util.Arrays.equals(trustedBefore, Files.readAllBytes(volunteer.stateDir().resolve("joined-servers"))));
        assertEquals(List.of(volunteerLine()), servers("relays", "list").out().lines().toList());
        FspCommand.Result listed = servers("invite", "--list");
        assertTrue(listed.out().contains(code.substring(0, 4) + "   used") && listed.out().contains("revoked"), listed.out());

        FspCommand.Result removed = servers("relays", "remove", "127.0.0.1:" + volunteer.address().getPort());
        assertEquals(0, removed.exit(), removed.toString());
        await(() -> server.output().contains("joined relays now []"), "the removal applied");
        assertFalse(announcedRelayPorts().contains(volunteer.address().getPort()), server.output());
        assertEquals("", servers("relays", "list").out());
        assertTrue(server.isAlive(), server.output());
    }

    private String volunteerLine() {
        return "127.0.0.1:" + volunteer.address().getPort() + "=" + volunteer.fingerprint();
    }

    /** {@code fsp-server invite}: the code it printed. */
    private String invite() throws Exception {
        FspCommand.Result r = servers("invite", "--expires", "10m");
        assertEquals(0, r.exit(), r.toString());
        String code = r.out().strip();
        assertTrue(code.matches("[A-Z2-7]{4}(-[A-Z2-7]{4}){3}"), code);
        return code;
    }

    private FspCommand.Result servers(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--config", config.toString()));
        return FspCommand.runProgram(ServerProcess.MAIN_CLASS, all);
    }

    /** {@code fsp-relay join CODE 127.0.0.1:PORT} with the volunteer relay's state directory and address. */
    private FspCommand.Result join(String code) throws Exception {
        return FspCommand.runProgram(RelayProcess.MAIN_CLASS, List.of("join", code, "127.0.0.1:" + server.port(),
                "--state-dir", volunteer.stateDir().toString(), "--listen", "127.0.0.1:" + volunteer.address().getPort()));
    }

    /** The ports of the relays a FRET announces, whatever its end. */
    private List<Integer> announcedRelayPorts() throws Exception {
        try (ControlConnection c = ControlConnection.login(server.ipv4(), StripeRig.USER, StripeRig.PASSWORD,
                transcript)) {
            c.sendLine("FRET data.bin");
            List<String> announced = new ArrayList<>();
            while (true) {
                Reply r = c.readReply();
                if (r.code() >= 200) {
                    break;
                }
                if (r.code() == 151) {
                    r.lines().forEach(l -> announced.add(l.substring(4)));
                }
            }
            return Fret.of(announced).relays().stream().map(io.fsp.extension.Announcement.Relay::port).toList();
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for: " + what);
            Thread.sleep(50);
        }
    }
}
