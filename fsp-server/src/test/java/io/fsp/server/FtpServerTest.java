package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPClient;
import org.apache.commons.net.ftp.FTPFile;
import org.apache.commons.net.ftp.FTPReply;
import org.apache.commons.net.ftp.FTPSClient;
import org.apache.commons.net.util.TrustManagerUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A real server on loopback, driven by Commons Net {@code FTPClient}/{@code FTPSClient} and raw sockets. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FtpServerTest {
    @TempDir
    static Path tmp;
    static Path root;
    static FspServer server;
    static byte[] big;

    @BeforeAll
    static void start() throws Exception {
        root = Files.createDirectories(tmp.resolve("root"));
        big = new byte[3 * 1024 * 1024 + 17];
        new Random(42).nextBytes(big);
        Files.write(root.resolve("big.bin"), big);
        Files.writeString(root.resolve("text.txt"), "one\ntwo\nthree\n");
        Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(tmp.resolve("outside/secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("escape"), tmp.resolve("outside"));
        Files.createSymbolicLink(root.resolve("escape.txt"), tmp.resolve("outside/secret.txt"));
        server = TestServers.start(root, tmp.resolve("state"), Map.of("allow-plain-login", List.of("true")));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static InetSocketAddress v4() {
        return server.addresses().get(0);
    }

    static InetSocketAddress v6() {
        return server.addresses().get(1);
    }

    static FTPClient plainClient(InetSocketAddress address) throws IOException {
        FTPClient c = new FTPClient();
        c.setControlEncoding("UTF-8");
        c.setDefaultTimeout(10_000);
        c.setDataTimeout(java.time.Duration.ofSeconds(10));
        c.connect(address.getAddress(), address.getPort());
        assertTrue(c.login("alice", "secret"), c.getReplyString());
        assertTrue(c.setFileType(FTP.BINARY_FILE_TYPE));
        return c;
    }

    static FTPSClient tlsClient(InetSocketAddress address) throws IOException {
        FTPSClient c = new FTPSClient("TLS", false);
        c.setControlEncoding("UTF-8");
        c.setTrustManager(TrustManagerUtils.getAcceptAllTrustManager());
        c.setEndpointCheckingEnabled(false);
        c.setDefaultTimeout(10_000);
        c.connect(address.getAddress(), address.getPort());
        assertTrue(c.login("alice", "secret"), c.getReplyString());
        c.execPBSZ(0);
        c.execPROT("P");
        assertTrue(c.setFileType(FTP.BINARY_FILE_TYPE));
        return c;
    }

    static byte[] retrieve(FTPClient c, String name) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertTrue(c.retrieveFile(name, out), c.getReplyString());
        return out.toByteArray();
    }

    static Stream<Arguments> modes() {
        return Stream.of(Arguments.of("v4", "passive"), Arguments.of("v4", "active"),
                Arguments.of("v6", "passive"), Arguments.of("v6", "active"), Arguments.of("v4", "epsv"));
    }

    static void mode(FTPClient c, String mode) {
        switch (mode) {
            case "passive" -> c.enterLocalPassiveMode();
            case "epsv" -> {
                c.enterLocalPassiveMode();
                c.setUseEPSVwithIPv4(true);
            }
            default -> c.enterLocalActiveMode();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modes")
    void retrievesAndStoresByteIdenticalFiles(String family, String mode) throws IOException {
        FTPClient c = plainClient(family.equals("v4") ? v4() : v6());
        mode(c, mode);
        assertArrayEquals(big, retrieve(c, "big.bin"));
        String name = "up-" + family + "-" + mode + ".bin";
        assertTrue(c.storeFile(name, new ByteArrayInputStream(big)), c.getReplyString());
        assertArrayEquals(big, Files.readAllBytes(root.resolve(name)));
        FTPFile[] listing = c.listFiles();
        assertTrue(Arrays.stream(listing).anyMatch(f -> f.getName().equals(name) && f.getSize() == big.length),
                Arrays.toString(listing));
        assertTrue(c.deleteFile(name));
        c.logout();
        c.disconnect();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modes")
    void transfersOverTlsWithProtP(String family, String mode) throws IOException {
        FTPSClient c = tlsClient(family.equals("v4") ? v4() : v6());
        mode(c, mode);
        assertArrayEquals(big, retrieve(c, "big.bin"));
        String name = "tls-" + family + "-" + mode + ".bin";
        assertTrue(c.storeFile(name, new ByteArrayInputStream(big)), c.getReplyString());
        assertArrayEquals(big, Files.readAllBytes(root.resolve(name)));
        assertTrue(c.listNames().length >= 2);
        assertTrue(c.deleteFile(name));
        c.logout();
        c.disconnect();
    }

    @Test
    void resumesRetrieveAndStoreWithRest() throws IOException {
        FTPClient c = plainClient(v4());
        c.enterLocalPassiveMode();
        c.setRestartOffset(1_000_000);
        assertArrayEquals(Arrays.copyOfRange(big, 1_000_000, big.length), retrieve(c, "big.bin"));

        int half = big.length / 2;
        assertTrue(c.storeFile("resume.bin", new ByteArrayInputStream(big, 0, half + 12345)));
        c.setRestartOffset(half);
        assertTrue(c.storeFile("resume.bin", new ByteArrayInputStream(big, half, big.length - half)), c.getReplyString());
        assertArrayEquals(big, Files.readAllBytes(root.resolve("resume.bin")));

        c.setRestartOffset(big.length + 1);
        assertFalse(c.retrieveFile("big.bin", OutputStream.nullOutputStream()));
        assertEquals(554, c.getReplyCode());
        c.setRestartOffset(10);
        assertFalse(c.storeFile("no-such-file.bin", new ByteArrayInputStream(new byte[1])));
        assertEquals(554, c.getReplyCode());
        assertFalse(Files.exists(root.resolve("no-such-file.bin")), "a refused resume creates nothing");
        c.setRestartOffset(0);
        assertTrue(c.deleteFile("resume.bin"));
        c.disconnect();
    }

    @Test
    void appendsToExistingFile() throws IOException {
        FTPClient c = plainClient(v4());
        c.enterLocalPassiveMode();
        assertTrue(c.storeFile("appe.txt", new ByteArrayInputStream("first ".getBytes(StandardCharsets.UTF_8))));
        assertTrue(c.appendFile("appe.txt", new ByteArrayInputStream("second".getBytes(StandardCharsets.UTF_8))));
        assertEquals("first second", Files.readString(root.resolve("appe.txt")));
        assertTrue(c.storeUniqueFile("appe.txt", new ByteArrayInputStream("unique".getBytes(StandardCharsets.UTF_8))));
        assertTrue(c.getReplyString().contains("226"));
        assertEquals("unique", Files.readString(root.resolve("appe.txt.1")));
        c.deleteFile("appe.txt");
        c.deleteFile("appe.txt.1");
        c.disconnect();
    }

    @Test
    void convertsLineEndsInAsciiMode() throws IOException {
        FTPClient c = plainClient(v4());
        c.enterLocalPassiveMode();
        assertTrue(c.setFileType(FTP.ASCII_FILE_TYPE));
        assertEquals(FTPReply.FILE_STATUS, c.sendCommand("SIZE text.txt"));
        assertEquals("213 17", c.getReplyString().strip(), "each LF counts as CRLF");
        // Commons Net turns CRLF back into LF, so the round trip is exact.
        assertEquals("one\ntwo\nthree\n", new String(retrieve(c, "text.txt"), StandardCharsets.UTF_8));
        assertTrue(c.storeFile("ascii.txt", new ByteArrayInputStream("a\nb\n".getBytes(StandardCharsets.UTF_8))));
        assertEquals("a\nb\n", Files.readString(root.resolve("ascii.txt")));
        c.deleteFile("ascii.txt");
        c.disconnect();
    }

    @Test
    void answersHashWithEveryAlgorithm() throws Exception {
        FTPClient c = plainClient(v4());
        assertEquals(213, c.sendCommand("HASH big.bin"));
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(big));
        assertEquals("213 SHA-256 0-" + big.length + " " + sha + " big.bin", c.getReplyString().strip());
        assertEquals(200, c.sendCommand("OPTS HASH MD5"));
        assertEquals(213, c.sendCommand("HASH big.bin"));
        assertTrue(c.getReplyString().contains(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(big))));
        assertEquals(200, c.sendCommand("OPTS HASH CRC32"));
        assertEquals(213, c.sendCommand("HASH text.txt"));
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update("one\ntwo\nthree\n".getBytes(StandardCharsets.UTF_8));
        assertTrue(c.getReplyString().contains(String.format("%08x", crc.getValue())), c.getReplyString());
        assertEquals(550, c.sendCommand("HASH nothing.bin"));
        c.disconnect();
    }

    @Test
    void managesDirectoriesAndRenames() throws IOException {
        FTPClient c = plainClient(v6());
        c.enterLocalPassiveMode();
        assertTrue(c.makeDirectory("dir ü"));
        assertTrue(c.changeWorkingDirectory("dir ü"));
        assertEquals("/dir ü", c.printWorkingDirectory());
        assertTrue(c.storeFile("a.txt", new ByteArrayInputStream(new byte[] {1, 2, 3})));
        assertTrue(c.rename("a.txt", "/dir ü/b.txt"));
        assertEquals(3, c.mlistFile("b.txt").getSize());
        assertEquals(1, c.mlistDir().length);
        assertTrue(c.getModificationTime("b.txt").matches("\\d{14}"));
        assertTrue(c.changeToParentDirectory());
        assertFalse(c.removeDirectory("dir ü"), "not empty");
        assertTrue(c.deleteFile("dir ü/b.txt"));
        assertTrue(c.removeDirectory("dir ü"));
        assertFalse(Files.exists(root.resolve("dir ü")));
        c.disconnect();
    }

    @Test
    void refusesSymlinksThatLeaveTheRoot() throws IOException {
        FTPClient c = plainClient(v4());
        c.enterLocalPassiveMode();
        assertFalse(c.retrieveFile("escape.txt", OutputStream.nullOutputStream()));
        assertEquals(550, c.getReplyCode());
        assertFalse(c.retrieveFile("escape/secret.txt", OutputStream.nullOutputStream()));
        assertEquals(550, c.getReplyCode());
        assertFalse(c.changeWorkingDirectory("escape"));
        assertEquals(550, c.getReplyCode());
        assertTrue(c.changeWorkingDirectory("../../.."));
        assertEquals("/", c.printWorkingDirectory());
        assertFalse(c.retrieveFile("../outside/secret.txt", OutputStream.nullOutputStream()));
        assertEquals(550, c.getReplyCode());
        assertTrue(Arrays.stream(c.listNames()).noneMatch(n -> n.contains("escape")), "links out are not listed");
        c.disconnect();
    }

    @Test
    void abortsRunningDownloadWith426Then226() throws IOException {
        Path huge = root.resolve("huge.bin");
        try (var f = java.nio.channels.FileChannel.open(huge, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            f.write(java.nio.ByteBuffer.wrap(new byte[1]), 2L << 30); // sparse 2 GiB
        }
        try (RawControl ctl = new RawControl(v4()).login()) {
            ctl.send("TYPE I");
            int port = ctl.epsv();
            try (Socket data = new Socket("127.0.0.1", port)) {
                assertTrue(ctl.send("RETR huge.bin").startsWith("150"));
                data.getInputStream().readNBytes(100_000);
                ctl.sendRaw(new byte[] {(byte) 0xFF, (byte) 0xF4, (byte) 0xFF, (byte) 0xF2});
                ctl.sendRaw("ABOR\r\n".getBytes(StandardCharsets.US_ASCII));
                assertTrue(ctl.reply().startsWith("426"));
                assertTrue(ctl.reply().startsWith("226"));
            }
            assertTrue(ctl.send("NOOP").startsWith("200"), "still serving");
        } finally {
            Files.delete(huge);
        }
    }

    @Test
    void uploadCutByResetLeavesNoFile() throws Exception {
        try (RawControl ctl = new RawControl(v4()).login()) {
            ctl.send("TYPE I");
            int port = ctl.epsv();
            Socket data = new Socket("127.0.0.1", port);
            assertTrue(ctl.send("STOR cut.bin").startsWith("150"));
            data.getOutputStream().write(new byte[200_000]);
            data.getOutputStream().flush();
            Thread.sleep(200);
            data.setSoLinger(true, 0);
            data.close(); // RST
            String r = ctl.reply();
            assertTrue(r.startsWith("426") || r.startsWith("451"), r);
            assertFalse(Files.exists(root.resolve("cut.bin")), "no file as if complete");
            Thread.sleep(200);
            try (Stream<Path> files = Files.list(root)) {
                assertTrue(files.noneMatch(p -> p.getFileName().toString().contains("cut.bin")), "partial removed");
            }
            assertTrue(ctl.send("NOOP").startsWith("200"));
        }
    }

    /** A legal name of 255 UTF-8 bytes: its part-file name must fit in a file name too. */
    @Test
    void uploadOfALongMultibyteNameWorks() throws Exception {
        String name = "ü".repeat(127) + "x"; // 255 bytes
        try (RawControl ctl = new RawControl(v4()).login()) {
            ctl.send("TYPE I");
            int port = ctl.epsv();
            try (Socket data = new Socket("127.0.0.1", port)) {
                assertTrue(ctl.send("STOR " + name).startsWith("150"));
                data.getOutputStream().write("long name".getBytes(StandardCharsets.UTF_8));
            }
            String r = ctl.reply();
            assertTrue(r.startsWith("226"), r);
            assertEquals("long name", Files.readString(root.resolve(name)));
        }
    }

    @Test
    void refusesDataConnectionFromAnotherAddress() throws Exception {
        try (RawControl ctl = new RawControl(v4()).login()) {
            int port = ctl.epsv();
            try (Socket intruder = new Socket()) {
                intruder.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                intruder.connect(new InetSocketAddress("127.0.0.1", port));
                intruder.setSoTimeout(5000);
                assertEquals(-1, intruder.getInputStream().read(), "closed without data");
            }
            try (Socket data = new Socket("127.0.0.1", port)) {
                assertTrue(ctl.send("RETR text.txt").startsWith("150"));
                assertEquals("one\r\ntwo\r\nthree\r\n", new String(data.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                assertTrue(ctl.reply().startsWith("226"));
            }
        }
    }

    @Test
    void keepsServingAfterHostileLines() throws IOException {
        try (RawControl ctl = new RawControl(v4())) {
            ctl.reply();
            assertTrue(ctl.send("NOOP " + "x".repeat(20_000)).startsWith("500"));
            ctl.sendRaw(new byte[] {'U', 'S', 'E', 'R', ' ', (byte) 0xFF, (byte) 0xFE, '\r', '\n'});
            assertTrue(ctl.reply().startsWith("501"));
            assertTrue(ctl.send("RETR big.bin").startsWith("530"));
            assertTrue(ctl.send("FOO").startsWith("502"));
        }
        FTPClient second = plainClient(v4());
        assertTrue(FTPReply.isPositiveCompletion(second.noop()));
        second.disconnect();
    }

    @Test
    void printsTheFingerprintOfTheCertificateOnTheWire() throws IOException {
        FTPSClient c = tlsClient(v4());
        c.enterLocalPassiveMode();
        assertNotNull(c.listNames());
        c.disconnect();
        assertEquals(64, server.fingerprint().toString().replace(":", "").length());
    }

    @Test
    void readOnlyAnonymousCannotWrite(@TempDir Path state) throws Exception {
        try (FspServer anon = TestServers.start(root, state, Map.of("anonymous", List.of("true")))) {
            FTPClient c = new FTPClient();
            c.connect("127.0.0.1", anon.addresses().get(0).getPort());
            assertTrue(c.login("anonymous", "guest@example.org"), "no TLS needed: no secret is sent");
            c.enterLocalPassiveMode();
            c.setFileType(FTP.BINARY_FILE_TYPE);
            assertArrayEquals(big, retrieve(c, "big.bin"));
            assertFalse(c.storeFile("nope.bin", new ByteArrayInputStream(new byte[1])));
            assertEquals(550, c.getReplyCode());
            assertFalse(c.deleteFile("big.bin"));
            assertFalse(c.makeDirectory("nope"));
            c.disconnect();
            // alice still needs TLS on this server: no --allow-plain-login.
            FTPClient plain = new FTPClient();
            plain.connect("127.0.0.1", anon.addresses().get(0).getPort());
            assertFalse(plain.login("alice", "secret"));
            assertEquals(530, plain.getReplyCode());
            plain.disconnect();
            FTPSClient tls = tlsClient(anon.addresses().get(0));
            assertTrue(tls.storeFile("tls-ok.bin", new ByteArrayInputStream(new byte[] {7})));
            tls.deleteFile("tls-ok.bin");
            tls.disconnect();
        }
    }

    @Test
    void closesIdleConnectionsWith421(@TempDir Path state) throws Exception {
        try (FspServer s = TestServers.start(root, state, Map.of("idle-timeout", List.of("500ms")));
             RawControl ctl = new RawControl(s.addresses().get(0))) {
            assertTrue(ctl.reply().startsWith("220"));
            String r = ctl.reply();
            assertTrue(r.startsWith("421"), r);
            assertNull(ctl.reply());
        }
    }

    /**
     * A data connection that moves nothing for data-timeout ends its transfer with 426: an upload that sends nothing
     * (nothing of it is left), and a download whose client stopped reading; the control connection serves on.
     */
    @Test
    void stalledDataConnectionsEndTheirTransferWith426(@TempDir Path state) throws Exception {
        Path big = root.resolve("stall-big.bin");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(big,
                java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(1), (64L << 20) - 1); // sparse: 64 MiB, more than socket buffers hold
        }
        try (FspServer s = TestServers.start(root, state, Map.of("data-timeout", List.of("1s"), "allow-plain-login", List.of("true")));
             RawControl ctl = new RawControl(s.addresses().get(0)).login()) {
            ctl.send("TYPE I");
            try (Socket silent = new Socket("127.0.0.1", ctl.epsv())) {
                assertTrue(ctl.send("STOR stalled.bin").startsWith("150"));
                long start = System.nanoTime();
                String r = ctl.reply();
                assertTrue(r.startsWith("426") && r.contains("data-timeout"), r);
                assertTrue((System.nanoTime() - start) / 1e9 > 0.8, "not before the timeout");
            }
            Thread.sleep(300);
            try (Stream<Path> files = Files.list(root)) {
                assertTrue(files.noneMatch(p -> p.getFileName().toString().contains("stalled.bin")), "nothing of the upload left");
            }
            try (Socket unread = new Socket("127.0.0.1", ctl.epsv())) {
                unread.setReceiveBufferSize(64 * 1024);
                assertTrue(ctl.send("RETR stall-big.bin").startsWith("150"));
                String r = ctl.reply(); // the client reads nothing
                assertTrue(r.startsWith("426") && r.contains("data-timeout"), r);
            }
            assertTrue(ctl.send("NOOP").startsWith("200"), "the control connection serves on");
        } finally {
            Files.deleteIfExists(big);
        }
    }

    /** A connection that never logs in is closed after the grace time, however busy it keeps; a user stays. */
    @Test
    void closesConnectionsThatDoNotLogInWithinTheGraceTime(@TempDir Path state) throws Exception {
        // The logged-in client first, so its own login (Argon2, slow on a loaded machine) is not raced by the grace
        // time; the lurker's clock starts when it connects.
        try (FspServer s = TestServers.start(root, state, Map.of("login-grace-time", List.of("3s"), "allow-plain-login", List.of("true")));
             RawControl user = new RawControl(s.addresses().get(0)).login()) {
            long start = System.nanoTime();
            try (RawControl lurker = new RawControl(s.addresses().get(0))) {
                assertTrue(lurker.reply().startsWith("220"));
                String r = "200";
                while (r != null && r.startsWith("200") && System.nanoTime() - start < 30_000_000_000L) {
                    Thread.sleep(100);
                    try {
                        r = lurker.send("NOOP");
                    } catch (java.io.IOException closed) {
                        r = null;
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                assertTrue(r == null || r.startsWith("421"), r);
                assertTrue(seconds >= 2.9 && seconds < 20, "closed after " + seconds + " s (expected: the 3 s grace time, busy or not)");
            }
            assertTrue(user.send("NOOP").startsWith("200"), "a logged-in client is still served");
        }
    }

    @Test
    void limitsConnectionsPerAddress(@TempDir Path state) throws Exception {
        try (FspServer s = TestServers.start(root, state, Map.of("max-connections-per-address", List.of("2")))) {
            InetSocketAddress a = s.addresses().get(0);
            try (RawControl one = new RawControl(a); RawControl two = new RawControl(a)) {
                assertTrue(one.reply().startsWith("220"));
                assertTrue(two.reply().startsWith("220"));
                try (RawControl three = new RawControl(a)) {
                    assertTrue(three.reply().startsWith("421"));
                    assertNull(three.reply());
                }
                String metrics = TestServers.metrics(s);
                assertTrue(metrics.contains("\nfsp_server_connections_refused_total 1.0\n"), metrics);
                assertTrue(metrics.contains("\nfsp_server_ftp_errors_total{class=\"4xx\",code=\"421\"} 1.0\n"), metrics);
                assertTrue(metrics.contains("\nfsp_server_connections 2.0\n"), metrics);
            }
            Thread.sleep(200);
            try (RawControl again = new RawControl(a)) {
                assertTrue(again.reply().startsWith("220"), "slots are given back");
            }
        }
    }

    @Test
    void requiredSessionReuseRefusesDataConnectionsThatStartNewSessions(@TempDir Path state) throws Exception {
        try (FspServer s = TestServers.start(root, state, Map.of("require-tls-session-reuse", List.of("true")))) {
            // Java's FTPSClient cannot resume the control session on a data connection.
            FTPSClient c = tlsClient(s.addresses().get(0));
            c.enterLocalPassiveMode();
            assertFalse(c.retrieveFile("text.txt", OutputStream.nullOutputStream()));
            assertEquals(425, c.getReplyCode(), c.getReplyString());
            assertTrue(FTPReply.isPositiveCompletion(c.noop()), "the control connection goes on");
            c.disconnect();
        }
    }

    /**
     * curl makes its passive data connection and starts its TLS handshake there before it sends RETR or STOR,
     * and reads the control connection again only once that handshake is done: the server answers such a
     * ClientHello at once (TLS 1.2, as for an upload, since the transfer command is not known yet).
     */
    @Test
    void dataHandshakeBeforeTheTransferCommandIsAnsweredAtOnce() throws Exception {
        FTPSClient c = tlsClient(v4());
        try (SSLSocket down = earlyHandshake(c)) {
            assertEquals("TLSv1.2", down.getSession().getProtocol());
            assertEquals(150, c.sendCommand("RETR big.bin"), c.getReplyString());
            assertArrayEquals(big, down.getInputStream().readAllBytes());
        }
        assertTrue(c.completePendingCommand(), c.getReplyString());
        try (SSLSocket up = earlyHandshake(c)) {
            assertEquals(150, c.sendCommand("STOR early.bin"), c.getReplyString());
            up.getOutputStream().write(big);
        }
        assertTrue(c.completePendingCommand(), c.getReplyString());
        assertArrayEquals(big, Files.readAllBytes(root.resolve("early.bin")));
        assertTrue(c.deleteFile("early.bin"));
        c.disconnect();
    }

    /** A transfer command before the connection is made (as FCOL's client sends it): a download gets TLS 1.3. */
    @Test
    void dataConnectionMadeAfterTheTransferCommandStillWorks() throws Exception {
        FTPSClient c = tlsClient(v4());
        int port = epsv(c);
        assertEquals(150, c.sendCommand("RETR big.bin"), c.getReplyString());
        try (SSLSocket down = handshake(port)) {
            assertEquals("TLSv1.3", down.getSession().getProtocol());
            assertArrayEquals(big, down.getInputStream().readAllBytes());
        }
        assertTrue(c.completePendingCommand(), c.getReplyString());
        c.disconnect();
    }

    /** EPSV, a connection to its port, and a finished TLS handshake there before any transfer command. */
    static SSLSocket earlyHandshake(FTPSClient c) throws Exception {
        return handshake(epsv(c));
    }

    static int epsv(FTPSClient c) throws IOException {
        assertEquals(229, c.sendCommand("EPSV"), c.getReplyString());
        String reply = c.getReplyString();
        return Integer.parseInt(reply.substring(reply.indexOf("(|||") + 4, reply.indexOf("|)")));
    }

    static SSLSocket handshake(int port) throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {TrustManagerUtils.getAcceptAllTrustManager()}, null);
        Socket plain = new Socket("127.0.0.1", port);
        SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
        s.setSoTimeout(5_000); // before the command, no answer at all would end here
        s.startHandshake();
        return s;
    }

    @Test
    void onlyCompleteUploadsReplaceFiles() throws Exception {
        Files.writeString(root.resolve("keep.txt"), "old content");
        try (RawControl ctl = new RawControl(v4()).login()) {
            ctl.send("TYPE I");
            int port = ctl.epsv();
            Socket data = new Socket("127.0.0.1", port);
            assertTrue(ctl.send("STOR keep.txt").startsWith("150"));
            data.getOutputStream().write("new".getBytes(StandardCharsets.UTF_8));
            data.getOutputStream().flush();
            assertEquals("old content", Files.readString(root.resolve("keep.txt")), "old file stays until the end");
            ctl.sendRaw("ABOR\r\n".getBytes(StandardCharsets.US_ASCII));
            assertTrue(ctl.reply().startsWith("426"));
            assertTrue(ctl.reply().startsWith("226"));
            data.close();
        }
        assertEquals("old content", Files.readString(root.resolve("keep.txt")));
        Files.delete(root.resolve("keep.txt"));
    }

    static String sha256(InputStream in) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[65536];
        for (int n; (n = in.read(buf)) > 0; ) {
            md.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
