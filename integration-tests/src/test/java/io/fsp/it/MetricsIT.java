package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.metrics.Scrape;
import io.fsp.relay.FspRelay;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.testkit.relay.Fault;
import io.fsp.tls.Certificates;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPSClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics endpoints of a server and its relays, scraped over HTTP after real striped transfers: the counters
 * moved by what happened. And no endpoint, no port, unless asked for.
 */
@Timeout(300)
class MetricsIT {
    private static final int FILE_BYTES = 3 * 1024 * 1024 + 12345;
    private static final int BLOCKS = 13; // of 256 KiB

    @TempDir
    Path dir;

    @Test
    void stripedTransfersMoveTheCountersOfServerAndRelays() throws Exception {
        try (StripeRig rig = StripeRig.startWithMetrics(dir.resolve("rig"), 64L << 20, new Fault[0], new Fault[0])) {
            TreeDigests.random(rig.root().resolve("one.bin"), FILE_BYTES, 1);
            FTPSClient ftps = new FTPSClient("TLS", false);
            ftps.setTrustManager(new ControlConnection.AcceptAnyCertificate());
            ftps.connect("127.0.0.1", rig.port());
            assertFalse(ftps.login(StripeRig.USER, "wrong"));
            ftps.disconnect();

            Path dest = dir.resolve("one.copy");
            CollectSummary relayed = rig.get("/one.bin", dest, false, "block-size=256k");
            assertTrue(relayed.complete() && relayed.verified(), relayed.toText());
            assertEquals(BLOCKS, relayed.blocks(), relayed.toText());
            Path direct = dir.resolve("one.direct");
            CollectSummary straight = new Collector(rig.options("/one.bin", direct, VerificationMode.FIVER, true,
                    Duration.ofSeconds(10), "use-relays=off", "block-size=256k")).run();
            assertTrue(straight.complete() && straight.verified(), straight.toText());

            Scrape server = Scrape.of(rig.server().metricsAddress().orElseThrow());
            assertEquals(2, server.get("fsp_server_striped_transfers_total{event=\"started\"}"));
            assertEquals(2, server.get("fsp_server_striped_transfers_total{event=\"completed\"}"));
            assertEquals(0, server.get("fsp_server_striped_transfers_total{event=\"failed\"}"));
            assertEquals(0, server.get("fsp_server_striped_transfers_open"));
            assertEquals(BLOCKS, server.get("fsp_server_blocks_placed_total{target=\"relay\"}"));
            assertEquals(BLOCKS, server.get("fsp_server_blocks_placed_total{target=\"direct\"}"));
            assertEquals(2, server.get("fsp_server_fret_duration_seconds_count"));
            assertEquals(2, server.get("fsp_server_logins_total{result=\"ok\"}"));
            assertEquals(1, server.get("fsp_server_logins_total{result=\"failed\"}"));
            assertEquals(1, server.get("fsp_server_ftp_errors_total{class=\"5xx\",code=\"530\"}"));
            assertTrue(server.get("fsp_server_data_sent_bytes_total") >= FILE_BYTES, "the direct blocks' bytes");
            // Sealed block bytes: as the relays acknowledged them, and as written to the direct data connection.
            double relayBytes = server.get("fsp_server_sent_bytes_total{path=\"relay\"}");
            double directBytes = server.get("fsp_server_sent_bytes_total{path=\"direct\"}");
            assertTrue(relayBytes >= FILE_BYTES, "sealed blocks are at least the file's bytes: " + relayBytes);
            assertEquals(relayBytes, directBytes, "the same blocks, sealed alike, went to the relays and direct");
            assertEquals(relayBytes, server.get(userSent("relay")), "alice's transfer");
            assertEquals(directBytes, server.get(userSent("direct")), "alice's transfer");
            assertEquals(0, server.get("fsp_server_sent_bytes_total{path=\"origin\"}"));
            assertEquals(0, server.get("fsp_server_sent_bytes_total{path=\"ftp\"}"));
            assertEquals(0, server.get("fsp_server_ftp_transfers_open{direction=\"send\"}"));
            assertEquals(0, server.get("fsp_server_ftp_transfers_open{direction=\"receive\"}"));

            double stored = 0;
            double served = 0;
            double confirmed = 0;
            double putBytes = 0;
            double getBytes = 0;
            for (FspRelay r : rig.relays()) {
                Scrape relay = Scrape.of(r.metricsAddress().orElseThrow());
                stored += relay.get("fsp_relay_blocks_stored_total");
                served += relay.get("fsp_relay_blocks_served_total");
                confirmed += relay.get("fsp_relay_blocks_confirmed_total");
                putBytes += relay.get("fsp_relay_put_bytes_total");
                getBytes += relay.get("fsp_relay_get_bytes_total");
                assertEquals(1, relay.get("fsp_relay_transfers_total{event=\"opened\"}"));
                assertEquals(relay.get("fsp_relay_blocks_stored_total"), relay.get("fsp_relay_put_duration_seconds_count"));
            }
            assertEquals(BLOCKS, stored, "every block was stored at one relay");
            assertTrue(served >= BLOCKS, "every block was fetched from a relay: " + served);
            // The client confirms as it goes without waiting for the answers, and the server aborts the transfer at
            // the relays once the client's control connection closed: the last confirmations may come too late.
            assertTrue(confirmed > 0 && confirmed <= BLOCKS, "blocks confirmed: " + confirmed);
            assertTrue(putBytes >= FILE_BYTES, "encrypted blocks are at least the file's bytes: " + putBytes);
            assertTrue(getBytes >= putBytes, getBytes + " < " + putBytes);
            assertEquals(putBytes, relayBytes, "the server counts the block bytes the relays stored");

            retrieveOverFtp(rig);

            refusedForgedToken(rig.relays().get(0));
            Scrape first = Scrape.of(rig.relays().get(0).metricsAddress().orElseThrow());
            assertEquals(1, first.get("fsp_relay_errors_total{code=\"TOKEN_FORGED\"}"));
            assertEquals(2, first.get("fsp_relay_transfers_total{event=\"opened\"}"));
            // Aborted: the test's transfer, and the striped one once its client's control connection closed.
            assertTrue(first.get("fsp_relay_transfers_total{event=\"aborted\"}") >= 1);
        }
    }

    private static String userSent(String path) {
        return "fsp_server_user_sent_bytes_total{path=\"" + path + "\",user=\"" + StripeRig.USER + "\"}";
    }

    /**
     * A RETR over FTPS counts the file's bytes under path ftp, for alice; a RETR waiting for its data connection
     * is an FTP transfer open, until its client goes away.
     */
    private static void retrieveOverFtp(StripeRig rig) throws Exception {
        InetSocketAddress metrics = rig.server().metricsAddress().orElseThrow();
        FTPSClient ftps = new FTPSClient("TLS", false);
        ftps.setTrustManager(new ControlConnection.AcceptAnyCertificate());
        ftps.connect("127.0.0.1", rig.port());
        try {
            assertTrue(ftps.login(StripeRig.USER, StripeRig.PASSWORD), ftps::getReplyString);
            ftps.execPBSZ(0);
            ftps.execPROT("P");
            ftps.enterLocalPassiveMode();
            assertTrue(ftps.setFileType(FTP.BINARY_FILE_TYPE), ftps::getReplyString);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            assertTrue(ftps.retrieveFile("/one.bin", got), ftps::getReplyString);
            assertEquals(FILE_BYTES, got.size());
            Scrape after = Scrape.of(metrics);
            assertEquals(FILE_BYTES, after.get("fsp_server_sent_bytes_total{path=\"ftp\"}"), "each byte once");
            assertEquals(FILE_BYTES, after.get(userSent("ftp")));
            assertTrue(after.get("fsp_server_data_sent_bytes_total") >= 2.0 * FILE_BYTES, "direct blocks, RETR");
            assertEquals(0, after.get("fsp_server_ftp_transfers_open{direction=\"send\"}"));

            assertEquals(227, ftps.sendCommand("PASV"), ftps::getReplyString);
            assertEquals(150, ftps.sendCommand("RETR", "/one.bin"), ftps::getReplyString); // nobody connects
            assertEquals(1, Scrape.of(metrics).get("fsp_server_ftp_transfers_open{direction=\"send\"}"));
        } finally {
            ftps.disconnect();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Scrape.of(metrics).get("fsp_server_ftp_transfers_open{direction=\"send\"}") != 0) {
            assertTrue(System.nanoTime() < deadline, "the abandoned RETR is still counted as open");
            Thread.sleep(50);
        }
        assertEquals(0, Scrape.of(metrics).get("fsp_server_striped_transfers_open"));
    }

    /** A client presents a token for a transfer open at the relay, signed with the wrong key. */
    private static void refusedForgedToken(FspRelay relay) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (RelayConnection server = RelayConnection.connect(relay.address(),
                SslContexts.client(PinnedTrustManager.of(Set.of(relay.fingerprint())),
                        Optional.of(Certificates.load(dir(relay, "server-cert.pem"), dir(relay, "server-key.pem")))),
                group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS);
             RelayConnection client = RelayConnection.connect(relay.address(),
                SslContexts.client(PinnedTrustManager.of(Set.of(relay.fingerprint())), Optional.empty()),
                group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
            TransferId id = TransferId.random();
            Instant expires = Instant.now().plusSeconds(600);
            server.openTransfer(id, TokenKey.random(), expires, 1 << 20).get(10, TimeUnit.SECONDS);
            CapabilityToken forged = CapabilityToken.issue(TokenKey.random(), id, expires, TokenScope.ALL);
            try {
                client.authorize(forged).get(10, TimeUnit.SECONDS);
                throw new AssertionError("a forged token was accepted");
            } catch (ExecutionException e) {
                assertEquals(RelayErrorCode.TOKEN_FORGED, ((RelayRefusedException) e.getCause()).code());
            }
            server.abortTransfer(id).get(10, TimeUnit.SECONDS);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** The rig's server certificate and key: {@code rig/server-state}, beside the relay's store directory. */
    private static Path dir(FspRelay relay, String file) {
        return relay.config().store().directory().getParent().resolve("server-state").resolve(file);
    }

    @Test
    void offByDefaultAndOnlyWhereTold() throws Exception {
        Path root = dir.resolve("root");
        Files.createDirectories(root);
        List<String> base = List.of("--listen", "127.0.0.1:0", "--root", root.toString(), "--anonymous", "--state-dir",
                dir.resolve("server-state").toString());
        try (ServerProcess server = ServerProcess.start(root, base, 1)) {
            assertEquals(1, listeningSockets(server.pid()), "the FTP listener only");
            assertFalse(server.output().contains("metrics"), server.output());
        }
        List<String> withMetrics = new java.util.ArrayList<>(base);
        withMetrics.addAll(List.of("--metrics", "127.0.0.1:0"));
        try (ServerProcess server = ServerProcess.start(root, withMetrics, 1)) {
            int port = printedMetricsPort(server::output, "fsp-server");
            assertEquals(2, listeningSockets(server.pid()));
            assertEquals(0, Scrape.of(new InetSocketAddress("127.0.0.1", port))
                    .get("fsp_server_striped_transfers_open"));
        }
        io.fsp.tls.Fingerprint trusted = Certificates.selfSigned("fsp-server").fingerprint();
        try (RelayProcess relay = RelayProcess.start(dir.resolve("relay"), trusted)) {
            assertEquals(1, listeningSockets(relay.pid()), "the relay's listener only");
        }
        try (RelayProcess relay = RelayProcess.start(dir.resolve("relay"), trusted, "--metrics", "127.0.0.1:0")) {
            int port = printedMetricsPort(relay::output, "fsp-relay");
            assertEquals(2, listeningSockets(relay.pid()));
            assertEquals(0, Scrape.of(new InetSocketAddress("127.0.0.1", port)).get("fsp_relay_transfers_open"));
        }
    }

    static int printedMetricsPort(java.util.function.Supplier<String> output, String daemon)
            throws InterruptedException {
        Pattern line = Pattern.compile(daemon + ": metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Matcher m = line.matcher(output.get());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            assertTrue(System.nanoTime() < deadline, "no metrics line: " + output.get());
            Thread.sleep(50);
        }
    }

    /** TCP sockets of process {@code pid} in state LISTEN, from /proc (Linux). */
    private static int listeningSockets(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // gone between the listing and the read
                }
            }
        }
        int listening = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path p = Path.of(table);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals("0A") && inodes.contains(f[9])) {
                    listening++;
                }
            }
        }
        return listening;
    }
}
