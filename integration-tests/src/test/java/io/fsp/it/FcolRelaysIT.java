package io.fsp.it;

import static io.fsp.it.harness.TwoSites.BOB;
import static io.fsp.it.harness.TwoSites.BOB_PASSWORD;
import static io.fsp.it.harness.TwoSites.login;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.Reply;
import io.fsp.it.harness.Fret;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.it.harness.TwoSites;
import io.fsp.tls.Certificates;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * FCOL as an attacker with write access on B uses it (docs/protocol.md §1, "FCOL"): B connects only to the relays
 * its configuration allows, resolves no name, counts the lines of a stream, and a collection that fails half-way
 * gives back its slot and its relay connections. Real processes: server A with two relays (the second serving
 * clients slowly, so that a collection can be broken while it runs), server B allowed A's relays by
 * {@code collect-relay} lines, and a plain TCP listener B was never configured with that counts what reaches it.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FcolRelaysIT {
    private static final int MAX_BLOCKS = 4096;

    @TempDir
    static Path dir;

    // The processes are the class's: each test leaves them as it found them, but the one that kills a relay runs last.
    private static final List<RelayProcess> relays = new ArrayList<>();
    private static TwoSites sites;
    private static Foreign foreign;
    private static RelayProcess spare;

    @BeforeAll
    static void start() throws Exception {
        sites = TwoSites.prepare(dir);
        sites.argsB().addAll(List.of("--config", dir.resolve("b.conf").toString()));
        StringBuilder confB = new StringBuilder("max-blocks-per-transfer = " + MAX_BLOCKS + "\n");
        relays.add(RelayProcess.start(dir.resolve("relay0"), sites.key().fingerprint()));
        // 2 MiB/s towards collectors: a collection of a few MiB is under way long enough to be broken
        relays.add(RelayProcess.withFaults(dir.resolve("relay1"), sites.key().fingerprint(), "--fault", "throttle:2097152"));
        for (RelayProcess r : relays) {
            sites.argsA().addAll(List.of("--relay", TwoSites.option(r)));
            confB.append("collect-relay = ").append(TwoSites.option(r)).append('\n');
        }
        // a relay B may collect from that A does not use: it knows none of A's transfers
        spare = RelayProcess.start(dir.resolve("spare"), sites.key().fingerprint());
        confB.append("collect-relay = ").append(TwoSites.option(spare)).append('\n');
        Files.writeString(dir.resolve("b.conf"), confB);
        sites.start();
        foreign = new Foreign();
    }

    /** B's root as each test expects it: empty. */
    @AfterEach
    void emptySiteB() throws IOException {
        sites.emptyRootB();
    }

    @AfterAll
    static void stop() throws IOException {
        if (sites != null) {
            sites.close();
        }
        relays.forEach(RelayProcess::close);
        if (spare != null) {
            spare.close();
        }
        if (foreign != null) {
            foreign.close();
        }
    }

    /**
     * A RELAY line aimed at a listener B was not configured with, with a made-up fingerprint or with the certificate
     * of a relay B does allow (fingerprints are public): refused with a 5xx naming it, before B connects to
     * anything; the listener sees no connection. The genuine stream then collects.
     */
    @Test
    void aForeignRelayGetsNoConnectionAndIsNamed() throws Exception {
        TreeDigests.random(sites.rootA().resolve("data.bin"), 2 * 1024 * 1024, 1);
        try (ControlChannel source = sites.source();
             ControlChannel dest = sites.destination()) {
            List<String> lines = fret(source, "/data.bin", "block-size=256k");
            String at = "127.0.0.1:" + foreign.port();
            for (String fingerprint : List.of(Certificates.selfSigned("elsewhere").fingerprint().toString(),
                    relays.get(0).fingerprint().toString())) {
                Reply r = fcol(dest, "/data.bin", withRelay(lines, 1, at + " " + fingerprint));
                System.out.println("one FCOL naming a foreign relay: " + r + "; connections so far: " + foreign.accepted());
                assertEquals(550, r.code(), r.toString());
                assertTrue(r.text().contains("relay 1 " + at) && r.text().contains("collect-relay"), r.text());
            }
            // the same listener under twenty more relay indices
            List<String> many = new ArrayList<>(withRelay(lines, 1, at + " " + relays.get(1).fingerprint()));
            for (int i = 100; i < 120; i++) {
                many.add(1 + many.indexOf(many.stream().filter(l -> l.startsWith("RELAY 1 ")).findFirst().orElseThrow()),
                        "RELAY " + i + " " + at + " " + relays.get(1).fingerprint());
            }
            Reply refused = fcol(dest, "/data.bin", many);
            System.out.println("one FCOL naming a foreign relay 21 times: " + refused + "; connections so far: "
                    + foreign.accepted());
            assertEquals(550, refused.code(), refused.toString());
            // a relay's own port on another loopback address is another relay
            String other = "127.0.0.2:" + relays.get(1).address().getPort();
            Reply r = fcol(dest, "/data.bin", withRelay(lines, 1, other + " " + relays.get(1).fingerprint()));
            assertEquals(550, r.code(), r.toString());
            assertTrue(r.text().contains(other), r.text());
            // the right address with another relay's certificate
            r = fcol(dest, "/data.bin", withRelay(lines, 1, "127.0.0.1:" + relays.get(1).address().getPort() + " "
                    + relays.get(0).fingerprint()));
            assertEquals(550, r.code(), r.toString());
            assertTrue(r.text().contains("certificate"), r.text());

            System.out.println("connections B made to a foreign listener from these FCOLs: " + foreign.accepted());
            assertEquals(0, foreign.accepted(), "connections B made to a listener it was not configured with");
            assertEquals(List.of(), listing(sites.rootB()), "nothing written");

            Reply ok = fcol(dest, "/data.bin", lines);
            assertEquals(226, ok.code(), ok.toString());
            assertEquals(TreeDigests.sha256(sites.rootA().resolve("data.bin")), TreeDigests.sha256(sites.rootB().resolve("data.bin")));
        }
    }

    /** B resolves no name a stream gives: a relay named by DNS is refused before anything is looked up or connected. */
    @Test
    void aRelayNamedByDnsIsRefused() throws Exception {
        TreeDigests.random(sites.rootA().resolve("data.bin"), 300_000, 2);
        try (ControlChannel source = sites.source();
             ControlChannel dest = sites.destination()) {
            List<String> lines = fret(source, "/data.bin", "block-size=256k");
            String named = "localhost:" + relays.get(0).address().getPort();
            Reply r = fcol(dest, "/data.bin", withRelay(lines, 0, named + " " + relays.get(0).fingerprint()));
            assertEquals(550, r.code(), r.toString());
            assertTrue(r.text().contains("relay 0 " + named) && r.text().contains("literal IP address"), r.text());
            assertEquals(List.of(), listing(sites.rootB()), "nothing written");
            assertEquals(200, dest.command("NOOP").code(), "the session serves on");
        }
    }

    /** One relay under many RELAY indices, FILE or DIR lines beyond the FSP line's counts: refused. */
    @Test
    void aStreamWithTooManyRelayOrFileLinesIsRefused() throws Exception {
        TreeDigests.random(sites.rootA().resolve("set/one.bin"), 1000, 3);
        try (ControlChannel source = sites.source();
             ControlChannel dest = sites.destination()) {
            List<String> lines = fret(source, "/set", "block-size=256k");
            String relay = lines.stream().filter(l -> l.startsWith("RELAY 0 ")).findFirst().orElseThrow();
            List<String> manyRelays = new ArrayList<>(lines);
            int at = manyRelays.indexOf(relay);
            for (int i = 100; i < 165; i++) {
                manyRelays.add(at, relay.replace("RELAY 0 ", "RELAY " + i + " "));
            }
            Reply r = fcol(dest, "/got", manyRelays);
            assertEquals(501, r.code(), r.toString());
            assertTrue(r.text().contains("relay 163 is relay 164 again"), r.text()); // over 64 of them: the unit test

            String file = lines.stream().filter(l -> l.startsWith("FILE ")).findFirst().orElseThrow();
            List<String> moreFiles = new ArrayList<>(lines);
            moreFiles.add(moreFiles.indexOf(file) + 1, file.replace("one.bin", "two.bin").replaceFirst("^FILE 0 ", "FILE 1 "));
            r = fcol(dest, "/got", moreFiles);
            assertEquals(501, r.code(), r.toString());
            assertTrue(r.text().contains("more FILE lines than the FSP line's files=1"), r.text());

            List<String> hugeTree = new ArrayList<>(lines);
            hugeTree.set(0, lines.get(0).replaceFirst(" files=\\d+ ", " files=" + MAX_BLOCKS + " ")
                    .replaceFirst(" directories=\\d+ ", " directories=1 "));
            r = fcol(dest, "/got", hugeTree);
            assertEquals(501, r.code(), r.toString());
            assertTrue(r.text().contains("max-blocks-per-transfer"), r.text());

            assertEquals(List.of(), listing(sites.rootB()), "nothing written");
            assertEquals(226, fcol(dest, "/got", lines).code(), "the genuine stream collects");
        }
    }

    /**
     * Collections broken while they run (the slow relay killed; the client gone): each gives back its slot and
     * closes its relay connections, so that the account's two slots take new collections afterwards.
     */
    @Test
    @Order(Integer.MAX_VALUE) // it kills the slow relay
    void aCollectionBrokenHalfWayFreesItsSlotAndItsRelayConnections() throws Exception {
        TreeDigests.random(sites.rootA().resolve("big.bin"), 16 * 1024 * 1024, 4);
        int fast = relays.get(0).address().getPort();
        int slow = relays.get(1).address().getPort();
        try (ControlChannel source = sites.source()) {
            // cyclic: half the blocks on the slow relay (2 MiB/s), so each collection runs for seconds
            List<String> lines = fret(source, "/big.bin", "block-size=256k strategy=cyclic");

            // the client goes away: B stops collecting
            ControlChannel gone = sites.destination();
            startFcol(gone, "/gone.bin", lines);
            awaitMarker(gone);
            assertTrue(connectionsTo(sites.b(), slow) > 0, "collecting from the slow relay");
            gone.close();
            awaitZero("B's connections to the relays once its client left", () -> connectionsTo(sites.b(), fast)
                    + connectionsTo(sites.b(), slow));

            // the slow relay dies under a collection: it fails with 451. A new transfer: the blocks the first
            // collection confirmed before its client left are gone from the relays.
            lines = fret(source, "/big.bin", "block-size=256k strategy=cyclic");
            try (ControlChannel dest = sites.destination()) {
                startFcol(dest, "/broken.bin", lines);
                awaitMarker(dest);
                relays.get(1).kill();
                Reply r = finalReply(dest);
                assertEquals(451, r.code(), r.toString());
                awaitZero("B's connections to the relays after the failure", () -> connectionsTo(sites.b(), fast));
                assertEquals(List.of(), listing(sites.rootB()), "nothing left of either collection");

                // both of bob's slots are free: two collections at once are accepted
                try (ControlChannel second = sites.destination()) {
                    startFcol(dest, "/again1.bin", lines);
                    startFcol(second, "/again2.bin", lines);
                    assertEquals(451, finalReply(dest).code(), "the slow relay is gone");
                    assertEquals(451, finalReply(second).code(), "the slow relay is gone");
                }
            }
        }
    }

    /**
     * A relay that refuses the transfer's AUTHORIZE (it does not hold the transfer): B closes that connection at
     * once, while it still collects from the others; the collection then completes from them.
     */
    @Test
    void aRefusedAuthorizeClosesItsConnectionAtOnce() throws Exception {
        TreeDigests.random(sites.rootA().resolve("big.bin"), 16 * 1024 * 1024, 5);
        try (ControlChannel source = sites.source();
             ControlChannel dest = sites.destination()) {
            // cyclic: half the blocks on the slow relay, about 4 s of collecting however loaded the machine
            List<String> lines = new ArrayList<>(fret(source, "/big.bin", "block-size=256k strategy=cyclic"));
            String last = lines.stream().filter(l -> l.startsWith("RELAY ")).reduce((x, y) -> y).orElseThrow();
            lines.add(lines.indexOf(last) + 1, "RELAY 7 127.0.0.1:" + spare.address().getPort() + " " + spare.fingerprint());
            startFcol(dest, "/big.bin", lines);
            awaitMarker(dest);
            awaitZero("B's connection to the relay that refused its AUTHORIZE", () -> connectionsTo(sites.b(),
                    spare.address().getPort()));
            assertTrue(connectionsTo(sites.b(), relays.get(1).address().getPort()) > 0,
                    "closed while the collection still runs, not only at its end");
            Reply r = finalReply(dest);
            assertEquals(226, r.code(), r.toString());
        }
    }

    /** {@code collect-relay} lines are reloaded on SIGHUP: the next FCOL is judged by the file as it is now. */
    @Test
    void theAllowListIsReloadedOnHangUp() throws Exception {
        TreeDigests.random(sites.rootA().resolve("data.bin"), 1024 * 1024, 7);
        try (ControlChannel source = sites.source();
             ControlChannel dest = sites.destination()) {
            List<String> lines = new ArrayList<>(fret(source, "/data.bin", "block-size=256k"));
            String last = lines.stream().filter(l -> l.startsWith("RELAY ")).reduce((x, y) -> y).orElseThrow();
            String spareAt = "127.0.0.1:" + spare.address().getPort();
            lines.add(lines.indexOf(last) + 1, "RELAY 7 " + spareAt + " " + spare.fingerprint());
            assertEquals(226, fcol(dest, "/one.bin", lines).code(), "the spare relay is allowed at start");

            Path conf = dir.resolve("b.conf");
            String confWithSpare = Files.readString(conf);
            Files.writeString(conf, Files.readAllLines(conf).stream().filter(l -> !l.contains(spareAt))
                    .map(l -> l + "\n").reduce("", String::concat));
            reload(sites.b(), "; 2 collect-relay line(s)");

            Reply r = fcol(dest, "/two.bin", lines);
            assertEquals(550, r.code(), r.toString());
            assertTrue(r.text().contains("relay 7 " + spareAt), r.text());

            Files.writeString(conf, confWithSpare);
            reload(sites.b(), "; 3 collect-relay line(s)");
        }
    }

    /** A collection still running at its {@code collect-timeout} is stopped with 451, its connections closed. */
    @Test
    void aCollectionPastItsDeadlineIsStopped() throws Exception {
        Path rootC = Files.createDirectories(dir.resolve("site-c"));
        StringBuilder conf = new StringBuilder("collect-timeout = 2s\n");
        for (RelayProcess r : relays) {
            conf.append("collect-relay = 127.0.0.1:").append(r.address().getPort()).append('\n');
            conf.append("trust-relay = ").append(r.fingerprint()).append('\n');
        }
        Files.writeString(dir.resolve("c.conf"), conf);
        TreeDigests.random(sites.rootA().resolve("big.bin"), 16 * 1024 * 1024, 6);
        try (ServerProcess c = ServerProcess.start(rootC, List.of("--listen", "127.0.0.1:0", "--root", rootC.toString(),
                "--user", BOB, "--state-dir", dir.resolve("state-c").toString(), "--login-failure-delay", "0s",
                "--config", dir.resolve("c.conf").toString()), 1, Map.of("FSP_PASSWORD_BOB", BOB_PASSWORD));
             ControlChannel source = sites.source();
             ControlChannel dest = login(c, BOB, BOB_PASSWORD, true)) {
            List<String> lines = fret(source, "/big.bin", "block-size=256k");
            long start = System.nanoTime();
            Reply r = fcol(dest, "/big.bin", lines);
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(451, r.code(), r.toString());
            assertTrue(r.text().contains("not done within 2s (collect-timeout)"), r.text());
            assertTrue(ms < 4000, "stopped at its deadline, before the slow relay's 4 s: " + ms + " ms");
            awaitZero("C's connections to the relays", () -> connectionsTo(c, relays.get(0).address().getPort())
                    + connectionsTo(c, relays.get(1).address().getPort()));
            assertEquals(List.of(), listing(rootC), "nothing left");
        }
    }

    /** SIGHUP to {@code server}, then its log says {@code loaded} of the file as it is now. */
    private static void reload(ServerProcess server, String loaded) throws Exception {
        int before = server.output().split(java.util.regex.Pattern.quote(loaded), -1).length;
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(server.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (server.output().split(java.util.regex.Pattern.quote(loaded), -1).length == before
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(server.output().split(java.util.regex.Pattern.quote(loaded), -1).length > before,
                "reloaded with \"" + loaded + "\": " + server.output());
    }

    /** FRET on A through relays only: its announcements, the transfer kept open at the relays while {@code source} is. */
    static List<String> fret(ControlChannel source, String path, String options) throws IOException {
        ControlChannel.expect(source.command("FSPO use-relays=on include-direct=off " + options), 200, "FSPO");
        return Fret.read(source, path).lines();
    }

    /** The stream with RELAY {@code index} moved to {@code where} ({@code HOST:PORT FINGERPRINT}). */
    private static List<String> withRelay(List<String> lines, int index, String where) {
        return lines.stream().map(l -> l.startsWith("RELAY " + index + " ") ? "RELAY " + index + " " + where : l).toList();
    }

    /** FCOL {@code path} with {@code lines} as its stream: the final reply (markers skipped), or the refusal. */
    static Reply fcol(ControlChannel dest, String path, List<String> lines) throws IOException {
        Reply first = startFcol(dest, path, lines);
        return first.code() == 150 ? finalReply(dest) : first;
    }

    /** Sends FCOL and, once it is answered 150, the stream; returns the first reply. */
    static Reply startFcol(ControlChannel dest, String path, List<String> lines) throws IOException {
        int port = dest.epsv();
        Reply first = dest.command("FCOL " + path);
        if (first.code() != 150) {
            return first;
        }
        try (Socket data = dest.secureData(dest.openData(port, Duration.ofSeconds(10)))) {
            data.getOutputStream().write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return first;
    }

    static Reply finalReply(ControlChannel dest) throws IOException {
        dest.readTimeout(Duration.ofMinutes(2));
        Reply r = dest.read();
        while (r.code() == 112) {
            r = dest.read();
        }
        return r;
    }

    /** Waits for B's first perf marker: the collection is under way. */
    static void awaitMarker(ControlChannel dest) throws IOException {
        dest.readTimeout(Duration.ofSeconds(30));
        Reply r = dest.read();
        assertEquals(112, r.code(), "a marker while the collection runs: " + r);
    }

    static List<Path> listing(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> !p.equals(root)).toList();
        }
    }

    private static void awaitZero(String what, IntSupplier count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int n = count.getAsInt();
        while (n != 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            n = count.getAsInt();
        }
        assertEquals(0, n, what);
    }

    /** Established TCP connections the process has open to {@code port} on loopback (from /proc). */
    private static int connectionsTo(ServerProcess process, int port) {
        Set<String> inodes = new HashSet<>();
        Path fds = Path.of("/proc", String.valueOf(process.pid()), "fd");
        try (Stream<Path> entries = Files.list(fds)) {
            for (Path fd : entries.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException ignored) {
                    // closed while we looked
                }
            }
            int n = 0;
            String hexPort = String.format(":%04X", port);
            for (String table : List.of("tcp", "tcp6")) {
                Path p = Path.of("/proc", String.valueOf(process.pid()), "net", table);
                for (String line : Files.readAllLines(p)) {
                    String[] f = line.trim().split("\\s+");
                    // sl local rem st ... inode (field 9)
                    if (f.length > 9 && f[2].endsWith(hexPort) && f[3].equals("01") && inodes.contains(f[9])) {
                        n++;
                    }
                }
            }
            return n;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read /proc of " + process.pid() + ": " + e.getMessage(), e);
        }
    }

    /** A plain TCP listener that counts the connections made to it and closes each. */
    private static final class Foreign implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        private final AtomicInteger accepted = new AtomicInteger();
        private final Thread acceptor;

        Foreign() throws IOException {
            acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        accepted.incrementAndGet();
                        s.setSoLinger(true, 0);
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "foreign-listener");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        int accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
