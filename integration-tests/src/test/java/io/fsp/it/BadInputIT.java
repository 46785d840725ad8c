package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.Reply;
import io.fsp.it.harness.TestTree;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile and broken input over raw sockets. Each case asserts the reply code (or that the server
 * closed the connection) and then that another client is still served: logs in, reads a file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadInputIT {
    /** Short, so the failed-login flood stays quick; it doubles per failure up to 16 times this. */
    private static final int LOGIN_FAILURE_DELAY_MILLIS = 20;
    /** The flood comes from one address: the server greets at most this many of it. */
    private static final int CONNECTIONS_PER_ADDRESS = 32;

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed()
            .with("--login-failure-delay", LOGIN_FAILURE_DELAY_MILLIS + "ms")
            .with("--max-connections-per-address", String.valueOf(CONNECTIONS_PER_ADDRESS));

    private static final byte[] PROBE = "still served\n".getBytes(StandardCharsets.US_ASCII);
    private static final String USER = FtpServerExtension.USER;
    private static final String PASSWORD = FtpServerExtension.PASSWORD;

    @BeforeEach
    void probeFile() {
        TestTree.write(SERVER.tree().root().resolve("probe/probe.txt"), PROBE);
    }

    private ControlConnection open() throws IOException {
        return ControlConnection.open(SERVER.server().ipv4(), SERVER.transcript());
    }

    private ControlConnection login() throws IOException {
        return ControlConnection.login(SERVER.server().ipv4(), USER, PASSWORD, SERVER.transcript());
    }

    /** A fresh client (from {@code from}, or 127.0.0.1) logs in and downloads the probe file. */
    private void assertAnotherClientIsServed(InetAddress from) throws IOException {
        assertTrue(SERVER.server().isAlive(), "server process is alive");
        try (ControlConnection c = ControlConnection.connect(SERVER.server().ipv4(), from, SERVER.transcript())) {
            c.expect(220);
            c.send("USER " + USER).assertCode(331);
            c.send("PASS " + PASSWORD).assertCode(230);
            c.send("TYPE I").assertCode(200);
            InetSocketAddress data = c.passive();
            try (Socket d = new Socket()) {
                if (from != null) {
                    d.bind(new InetSocketAddress(from, 0));
                }
                d.connect(data, 10_000);
                d.setSoTimeout(15_000);
                c.sendLine("RETR /probe/probe.txt");
                c.readReply().assertCodeIn(125, 150);
                assertArrayEquals(PROBE, d.getInputStream().readAllBytes());
            }
            c.readReply().assertCode(226);
            c.send("QUIT").assertCode(221);
        }
    }

    private void assertAnotherClientIsServed() throws IOException {
        assertAnotherClientIsServed(null);
    }

    /**
     * After a flood the server may need a moment to notice the closed connections (per-address
     * limits) or to let a login delay pass: the next client is served within 15 s.
     */
    private void assertServedSoonAfterFlood(InetAddress from) throws Exception {
        long deadline = System.currentTimeMillis() + 15_000;
        while (true) {
            try {
                assertAnotherClientIsServed(from);
                return;
            } catch (IOException | AssertionError e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                SERVER.transcript().add("not served yet after the flood: " + e.getMessage());
                Thread.sleep(500);
            }
        }
    }

    /** Reads the reply to a bad line: a 5xx code, or the server closed the connection. */
    private static Reply replyOrClose(ControlConnection c) throws IOException {
        try {
            return c.readReply();
        } catch (EOFException | SocketException e) {
            return null;
        }
    }

    // ---- Lines the decoder must refuse -------------------------------------------------------

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {16 * 1024, 100 * 1024, 4 * 1024 * 1024})
    void overLongLineIsRefused(int length) throws IOException {
        try (ControlConnection c = open()) {
            byte[] line = new byte[length + 2];
            Arrays.fill(line, (byte) 'A');
            System.arraycopy("NOOP ".getBytes(StandardCharsets.US_ASCII), 0, line, 0, 5);
            line[length] = '\r';
            line[length + 1] = '\n';
            try {
                c.sendRaw(line);
            } catch (SocketException e) {
                SERVER.transcript().add("server closed while we were still sending: " + e);
            }
            Reply reply = replyOrClose(c);
            if (reply != null) {
                reply.assertCodeIn(500, 501);
                // If the connection is kept, it is back in step: the next command is understood.
                c.send("NOOP").assertCode(200);
            }
        }
        assertAnotherClientIsServed();
    }

    @Test
    void endlessLineWithoutNewlineIsCutOff() throws IOException {
        try (ControlConnection c = open()) {
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) 'B');
            boolean refusedEarly = false;
            // 16 MiB without a line end: a server buffering it all would grow without bound.
            for (int i = 0; i < 256 && !refusedEarly; i++) {
                try {
                    c.socket().getOutputStream().write(chunk);
                } catch (SocketException e) {
                    refusedEarly = true;
                }
            }
            SERVER.transcript().add("server stopped reading before 16 MiB: " + refusedEarly);
            Reply reply = replyOrClose(c);
            if (reply != null) {
                reply.assertCodeIn(500, 501);
            }
        }
        assertAnotherClientIsServed();
    }

    @Test
    void nonUtf8BytesAreRefused() throws IOException {
        try (ControlConnection c = open()) {
            c.sendRaw(new byte[] {'U', 'S', 'E', 'R', ' ', (byte) 0xC3, (byte) 0x28, (byte) 0xFE, '\r', '\n'});
            Reply reply = replyOrClose(c);
            if (reply != null) {
                reply.assertCodeIn(500, 501);
                c.send("NOOP").assertCode(200);
            }
        }
        try (ControlConnection c = login()) {
            c.sendRaw(new byte[] {'M', 'K', 'D', ' ', 'x', (byte) 0xFF, (byte) 0x80, '\r', '\n'});
            Reply reply = replyOrClose(c);
            if (reply != null) {
                reply.assertCodeIn(500, 501, 553);
            }
        }
        try (var entries = Files.list(SERVER.tree().root())) {
            assertEquals(List.of(), entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("x")).toList(),
                    "nothing created from the malformed MKD");
        }
        assertAnotherClientIsServed();
    }

    @Test
    void emptyAndControlCharacterLinesAreRefused() throws IOException {
        try (ControlConnection c = open()) {
            c.sendRaw("\r\n".getBytes(StandardCharsets.US_ASCII));
            Reply empty = replyOrClose(c);
            if (empty != null) {
                empty.assertCodeIn(500, 501);
                c.sendRaw("NO\0OP\r\n".getBytes(StandardCharsets.US_ASCII));
                c.readReply().assertCodeIn(500, 501, 502);
                c.send("NOOP").assertCode(200);
            }
        }
        assertAnotherClientIsServed();
    }

    // ---- Commands in the wrong place ---------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"FOO", "XYZZY arg", "SITE EXEC /bin/sh", "GETX", "DELETE x"})
    void unknownCommandsGet500Or502(String line) throws IOException {
        try (ControlConnection c = login()) {
            c.send(line).assertCodeIn(500, 502, 504);
            c.send("NOOP").assertCode(200);
        }
        assertAnotherClientIsServed();
    }

    @ParameterizedTest
    @ValueSource(strings = {"PWD", "CWD /", "LIST", "NLST", "MLSD", "RETR probe/probe.txt", "STOR x", "DELE x",
        "MKD x", "RNFR x", "SIZE probe/probe.txt", "PASV", "EPSV", "PORT 127,0,0,1,200,10", "HASH x", "STAT /"})
    void commandsBeforeLoginGet530(String line) throws IOException {
        try (ControlConnection c = open()) {
            c.send(line).assertCode(530);
            c.send("USER " + USER).assertCode(331);
            c.send(line).assertCodeIn(530, 503);
            // The session may have dropped the pending USER: log in from the start.
            c.send("USER " + USER).assertCode(331);
            c.send("PASS " + PASSWORD).assertCode(230);
        }
        assertFalse(Files.exists(SERVER.tree().root().resolve("x")), "nothing created before login");
        assertAnotherClientIsServed();
    }

    @Test
    void outOfOrderCommandsGet503() throws IOException {
        try (ControlConnection c = open()) {
            c.send("PASS " + PASSWORD).assertCode(503);
        }
        try (ControlConnection c = login()) {
            c.send("RNTO /probe/renamed.txt").assertCode(503);
            c.send("RNFR /probe/probe.txt").assertCode(350);
            c.send("NOOP").assertCode(200);
            // RFC 959: RNTO must come right after RNFR
            c.send("RNTO /probe/renamed.txt").assertCodeIn(503, 250);
            c.send("USER other").assertCodeIn(331, 503, 530);
        }
        // put it back if the server allowed the RNTO after NOOP
        Path renamed = SERVER.tree().root().resolve("probe/renamed.txt");
        if (Files.exists(renamed)) {
            Files.move(renamed, SERVER.tree().root().resolve("probe/probe.txt"));
        }
        assertAnotherClientIsServed();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "TYPE X                        ; 501 504",
        "TYPE L 7                      ; 501 504",
        "MODE B                        ; 501 504",
        "MODE                          ; 501",
        "STRU R                        ; 501 504",
        "REST -5                       ; 501",
        "REST abc                      ; 501",
        "REST 99999999999999999999999  ; 501",
        "PORT 1,2,3                    ; 501",
        "PORT 127,0,0,1,300,1          ; 501",
        "EPRT |9|127.0.0.1|2000|       ; 501 522",
        "EPRT garbage                  ; 501",
        "EPSV 7                        ; 501 522",
        "OPTS HASH NOPE-512            ; 501 504",
        "OPTS NOSUCH ON                ; 501 502 504",
        "ALLO x                        ; 501 202",
        "RETR                          ; 501",
        "CWD                           ; 501 550 250",
        "SIZE /probe                   ; 550",
        "HASH /probe                   ; 550 501",
        "RMD /probe/probe.txt          ; 550",
        "RMD /probe                    ; 550",
    })
    void malformedArgumentsAreRefused(String line, String codes) throws IOException {
        int[] expected = Arrays.stream(codes.trim().split(" ")).mapToInt(Integer::parseInt).toArray();
        try (ControlConnection c = login()) {
            c.send(line.trim()).assertCodeIn(expected);
            c.send("NOOP").assertCode(200);
        }
        assertArrayEquals(PROBE, Files.readAllBytes(SERVER.tree().root().resolve("probe/probe.txt")));
        assertAnotherClientIsServed();
    }

    @Test
    void activeModeToAnotherHostIsRefused() throws IOException {
        // RFC 2577 §3: a PORT/EPRT naming another host than the client is a bounce attack.
        try (ControlConnection c = login()) {
            c.send("PORT 127,0,0,3,250,10").assertCodeIn(500, 501, 504);
            c.send("EPRT |1|127.0.0.3|64010|").assertCodeIn(500, 501, 504, 522);
            c.send("NOOP").assertCode(200);
        }
        assertAnotherClientIsServed();
    }

    @Test
    void epsvAllRefusesOtherDataCommands() throws IOException {
        try (ControlConnection c = login()) {
            c.send("TYPE I").assertCode(200);
            c.send("EPSV ALL").assertCode(200);
            c.send("PASV").assertCodeIn(500, 501, 503, 522);
            c.send("PORT 127,0,0,1,250,10").assertCodeIn(500, 501, 503, 522);
            c.send("EPRT |1|127.0.0.1|64011|").assertCodeIn(500, 501, 503, 522);
            InetSocketAddress data = c.extendedPassive();
            try (Socket d = ControlConnection.openData(data)) {
                c.sendLine("RETR /probe/probe.txt");
                c.readReply().assertCodeIn(125, 150);
                assertArrayEquals(PROBE, d.getInputStream().readAllBytes());
            }
            c.readReply().assertCode(226);
        }
        assertAnotherClientIsServed();
    }

    @Test
    void abortPrecededByTelnetInterruptAndSynchIsUnderstood() throws IOException {
        // RFC 959 §4.1.3: ABOR may come after Telnet IP (IAC 244) and Synch (IAC 242/DM).
        try (ControlConnection c = login()) {
            c.sendRaw(new byte[] {(byte) 0xFF, (byte) 0xF4, (byte) 0xFF, (byte) 0xF2, 'A', 'B', 'O', 'R', '\r', '\n'});
            c.readReply().assertCodeIn(225, 226);
            c.send("NOOP").assertCode(200);
        }
        assertAnotherClientIsServed();
    }

    // ---- Data connections ----------------------------------------------------------------------

    @Test
    void passiveConnectionFromUnexpectedAddressGetsNoData() throws IOException {
        byte[] secret = TestTree.randomBytes(256 * 1024, 99);
        TestTree.write(SERVER.tree().dir("intruder").resolve("secret.bin"), secret);
        try (ControlConnection c = login()) {
            c.send("TYPE I").assertCode(200);
            InetSocketAddress data = c.passive();
            assertEquals("127.0.0.1", data.getAddress().getHostAddress(), "PASV announces loopback");
            try (Socket intruder = new Socket()) {
                intruder.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                intruder.connect(data, 10_000);
                intruder.setSoTimeout(3000);
                c.sendLine("RETR /intruder/secret.bin");
                byte[] stolen = readUntilClosedOrQuiet(intruder.getInputStream());
                assertEquals(0, stolen.length, "bytes sent to a data connection from 127.0.0.2");
            }
            // The transfer either failed (425/426) or still waits for the real client.
            Reply first = c.readReply();
            if (first.code() == 150 || first.code() == 125) {
                byte[] received = null;
                try (Socket legit = ControlConnection.openData(data)) {
                    received = legit.getInputStream().readAllBytes();
                } catch (IOException e) {
                    SERVER.transcript().add("passive port closed after the intruder: " + e);
                }
                Reply end = c.readReply();
                if (end.code() == 226) {
                    assertArrayEquals(secret, received, "226 means the real client got the whole file");
                } else {
                    end.assertCodeIn(425, 426);
                }
            } else {
                first.assertCodeIn(425, 426);
            }
            c.send("NOOP").assertCode(200);
        }
        assertAnotherClientIsServed();
    }

    private static byte[] readUntilClosedOrQuiet(InputStream in) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = in.read(buffer)) > 0) {
                got.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException | SocketException e) {
            // quiet or reset: what counts is what arrived
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return got.toByteArray();
    }

    @Test
    void storResetMidFileIsNotReportedComplete() throws Exception {
        Path dir = SERVER.tree().dir("aborted-stor");
        byte[] part = TestTree.randomBytes(1024 * 1024, 5);
        try (ControlConnection c = login()) {
            c.send("TYPE I").assertCode(200);
            InetSocketAddress data = c.passive();
            Socket d = ControlConnection.openData(data);
            c.sendLine("STOR /aborted-stor/upload.bin");
            c.readReply().assertCodeIn(125, 150);
            OutputStream out = d.getOutputStream();
            out.write(part);
            out.flush();
            Thread.sleep(300);
            d.setSoLinger(true, 0); // close with RST: the upload did not finish
            d.close();
            Reply end = c.readReply();
            assertNotEquals(226, end.code(), "an upload cut by a reset must not be reported complete: " + end);
            end.assertCodeIn(426, 451, 550);
            c.send("NOOP").assertCode(200);
        }
        assertEquals(List.of(), SERVER.server().awaitNoOpenFilesUnder(dir, Duration.ofSeconds(5)),
                "the server closed the file of the failed upload");
        Path upload = dir.resolve("upload.bin");
        if (Files.exists(upload)) {
            // Kept for REST resumption: never longer than what was sent, never other bytes.
            byte[] kept = Files.readAllBytes(upload);
            assertTrue(kept.length <= part.length, "kept " + kept.length + " bytes");
            assertArrayEquals(Arrays.copyOf(part, kept.length), kept);
        }
        try (var entries = Files.list(dir)) {
            List<String> left = entries.map(p -> p.getFileName().toString()).filter(n -> !n.equals("upload.bin")).toList();
            assertEquals(List.of(), left, "no partial file left beside the target");
        }
        assertAnotherClientIsServed();
    }

    @Test
    void aborDuringStorEndsTransferWithout226ForIt() throws Exception {
        Path dir = SERVER.tree().dir("abor-stor");
        try (ControlConnection c = login()) {
            c.send("TYPE I").assertCode(200);
            InetSocketAddress data = c.passive();
            try (Socket d = ControlConnection.openData(data)) {
                c.sendLine("STOR /abor-stor/upload.bin");
                c.readReply().assertCodeIn(125, 150);
                d.getOutputStream().write(TestTree.randomBytes(512 * 1024, 6));
                d.getOutputStream().flush();
                c.sendLine("ABOR");
                Reply first = c.readReply();
                if (first.code() == 426) {
                    c.readReply().assertCodeIn(225, 226);
                } else {
                    fail("ABOR during a running STOR: expected 426 for the transfer, got " + first);
                }
            }
            c.send("NOOP").assertCode(200);
        }
        assertEquals(List.of(), SERVER.server().awaitNoOpenFilesUnder(dir, Duration.ofSeconds(5)),
                "the server closed the file of the aborted upload");
        try (var entries = Files.list(dir)) {
            List<String> left = entries.map(p -> p.getFileName().toString()).filter(n -> !n.equals("upload.bin")).toList();
            assertEquals(List.of(), left, "no partial file left beside the target");
        }
        assertAnotherClientIsServed();
    }

    // ---- Paths that try to leave the root ----------------------------------------------------

    @Test
    void pathsCannotLeaveTheRoot() throws Exception {
        Path outside = SERVER.tree().outside();
        Files.writeString(outside.resolve("secret.txt"), "outside the root");
        Path dir = SERVER.tree().dir("escape");
        Files.writeString(dir.resolve("inside.txt"), "inside");
        Files.createSymbolicLink(dir.resolve("dirlink"), outside);
        Files.createSymbolicLink(dir.resolve("filelink"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(dir.resolve("rootlink"), Path.of("/"));

        try (ControlConnection c = login()) {
            c.send("CWD /").assertCode(250);
            c.send("CWD ..").assertCodeIn(250, 550);
            assertTrue(c.send("PWD").assertCode(257).text().contains("\"/\""), "still at the root");
            c.send("CWD ../../../..").assertCodeIn(250, 550);
            assertTrue(c.send("PWD").assertCode(257).text().contains("\"/\""), "still at the root");
            c.send("SIZE ../outside/secret.txt").assertCode(550);
            c.send("SIZE /../outside/secret.txt").assertCode(550);
            c.send("SIZE " + outside.resolve("secret.txt")).assertCode(550);
            c.send("SIZE /escape/../../outside/secret.txt").assertCode(550);
            c.send("SIZE /escape/inside.txt").assertCode(213);
            c.send("SIZE /etc/passwd").assertCode(550);
            c.send("CWD /escape/dirlink").assertCode(550);
            c.send("SIZE /escape/dirlink/secret.txt").assertCode(550);
            c.send("SIZE /escape/filelink").assertCode(550);
            c.send("MDTM /escape/filelink").assertCode(550);
            c.send("HASH /escape/filelink").assertCode(550);
            c.send("CWD /escape/rootlink/etc").assertCode(550);
            c.send("MKD ../escaped-dir").assertCodeIn(257, 550);
            c.send("MKD /escape/dirlink/made").assertCode(550);
            c.send("DELE /escape/filelink/x").assertCode(550);
            c.send("RNFR /escape/inside.txt").assertCode(350);
            c.send("RNTO /escape/dirlink/moved.txt").assertCode(550);
            c.send("RNFR /escape/dirlink/secret.txt").assertCode(550);

            c.send("TYPE I").assertCode(200);
            for (String path : List.of("/escape/filelink", "/escape/dirlink/secret.txt", "../outside/secret.txt",
                    "/escape/rootlink/etc/passwd", "/escape")) {
                assertRetrRefused(c, path);
            }
            InetSocketAddress data = c.passive();
            try (Socket d = ControlConnection.openData(data)) {
                c.sendLine("STOR /escape/dirlink/planted.txt");
                Reply reply = c.readReply();
                if (reply.code() == 150 || reply.code() == 125) {
                    d.getOutputStream().write("planted".getBytes(StandardCharsets.US_ASCII));
                    d.shutdownOutput();
                    fail("STOR through a symlink leaving the root was accepted: " + reply + " / " + c.readReply());
                }
                reply.assertCodeIn(550, 553);
            }
            c.send("NOOP").assertCode(200);
        }
        try (var entries = Files.list(outside)) {
            assertEquals(List.of("secret.txt"), entries.map(p -> p.getFileName().toString()).toList(),
                    "nothing created or moved outside the root");
        }
        assertEquals("inside", Files.readString(dir.resolve("inside.txt")));
        assertFalse(Files.exists(SERVER.tree().root().getParent().resolve("escaped-dir")), "MKD ../ stayed inside");
        assertAnotherClientIsServed();
    }

    private static void assertRetrRefused(ControlConnection c, String path) throws IOException {
        c.sendLine("PASV");
        Reply pasv = c.readReply();
        c.sendLine("RETR " + path);
        Reply reply = c.readReply();
        assertEquals(550, reply.code(), () -> "RETR " + path + " after " + pasv + ": " + reply);
    }

    // ---- Floods -------------------------------------------------------------------------------

    @Test
    void connectionFloodIsAnsweredAndServerRecovers() throws Exception {
        List<Socket> flood = new ArrayList<>();
        int greeted = 0;
        int refused = 0;
        try {
            for (int i = 0; i < 300; i++) {
                Socket s = new Socket();
                flood.add(s);
                try {
                    s.connect(SERVER.server().ipv4(), 5000);
                } catch (IOException e) {
                    refused++; // backlog full or refused: allowed
                }
            }
            for (Socket s : flood) {
                if (!s.isConnected()) {
                    continue;
                }
                s.setSoTimeout(10_000);
                String first = readFirstLine(s);
                if (first.startsWith("220")) {
                    greeted++;
                } else if (first.startsWith("421") || first.isEmpty()) {
                    refused++;
                } else {
                    fail("reply to a flooding connection: \"" + first + "\" (expected: 220, 421 or close)");
                }
            }
        } finally {
            for (Socket s : flood) {
                s.close();
            }
        }
        SERVER.transcript().add("flood: " + greeted + " greeted, " + refused + " refused or closed");
        assertTrue(greeted >= 1, "the server greeted some of them");
        assertTrue(greeted <= CONNECTIONS_PER_ADDRESS, greeted + " of one address's connections greeted (expected: <= "
                + CONNECTIONS_PER_ADDRESS + ", --max-connections-per-address)");
        assertTrue(refused >= 300 - CONNECTIONS_PER_ADDRESS, refused + " refused or closed");
        assertServedSoonAfterFlood(InetAddress.getByName("127.0.0.2"));
        assertServedSoonAfterFlood(null);
    }

    private static String readFirstLine(Socket s) {
        try {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0 && b != '\n') {
                line.write(b);
            }
            return line.toString(StandardCharsets.UTF_8).trim();
        } catch (SocketTimeoutException e) {
            throw new AssertionError("a flooding connection got no answer within 10 s", e);
        } catch (IOException e) {
            return ""; // reset: closed by the server
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void failedLoginFloodIsRefusedAndOthersAreServed() throws Exception {
        int refusals = 0;
        int closed = 0;
        long slowestRefusal = 0;
        long start = System.nanoTime();
        for (int connection = 0; connection < 4; connection++) {
            try (ControlConnection c = open()) {
                for (int attempt = 0; attempt < 5; attempt++) {
                    try {
                        c.send("USER " + USER).assertCodeIn(331, 421, 530);
                        long asked = System.nanoTime();
                        Reply reply = c.send("PASS wrong-" + attempt);
                        slowestRefusal = Math.max(slowestRefusal, System.nanoTime() - asked);
                        reply.assertCodeIn(530, 421);
                        refusals++;
                        if (reply.code() == 421) {
                            assertTrue(c.closedByServer(5000), "421 closes the connection");
                            closed++;
                            break;
                        }
                    } catch (EOFException | SocketException e) {
                        closed++;
                        break;
                    }
                }
            }
        }
        SERVER.transcript().add("failed logins: " + refusals + " refused, " + closed + " connections closed, in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        assertTrue(refusals >= 4, "every connection saw its wrong password refused");
        // The delay doubles per failure from the address: by the 5th it is 16 times the base.
        assertTrue(TimeUnit.NANOSECONDS.toMillis(slowestRefusal) >= 16L * LOGIN_FAILURE_DELAY_MILLIS,
                "failed logins are answered ever more slowly: slowest " + TimeUnit.NANOSECONDS.toMillis(slowestRefusal) + " ms");
        // Another address is served despite the flood from 127.0.0.1 ...
        assertServedSoonAfterFlood(InetAddress.getByName("127.0.0.2"));
        // ... and the flooding address can still log in with the right password.
        assertServedSoonAfterFlood(null);
    }
}
