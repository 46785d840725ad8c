package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.Checksum;
import org.apache.commons.net.ftp.FTPSClient;
import org.apache.commons.net.util.TrustManagerUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checksum commands (XCRC, XMD5, XSHA1, XSHA256, XSHA512, HASH with RANG, CKSM) of a real server on
 * loopback, asked through Commons Net's {@code FTPSClient.sendCommand} over TLS, checked against the JDK's
 * digests of the same bytes.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChecksumCommandsTest {
    @TempDir
    static Path tmp;
    static Path root;
    static FspServer server;
    static byte[] big;
    static byte[] spaced;

    @BeforeAll
    static void start() throws Exception {
        root = Files.createDirectories(tmp.resolve("root"));
        big = new byte[2 * 1024 * 1024 + 33];
        new Random(7).nextBytes(big);
        Files.write(root.resolve("big.bin"), big);
        spaced = "a file whose name has blanks\n".getBytes(StandardCharsets.UTF_8);
        Files.createDirectories(root.resolve("dir"));
        Files.write(root.resolve("dir/with space 1 2.txt"), spaced);
        Files.write(root.resolve("empty.bin"), new byte[0]);
        Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(tmp.resolve("outside/secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("escape.txt"), tmp.resolve("outside/secret.txt"));
        server = TestServers.start(root, tmp.resolve("state"), Map.of());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** A client logged in as alice over explicit TLS. */
    static FTPSClient client(FspServer s) throws IOException {
        FTPSClient c = connected(s);
        assertTrue(c.login("alice", "secret"), c.getReplyString());
        return c;
    }

    static FTPSClient connected(FspServer s) throws IOException {
        FTPSClient c = new FTPSClient("TLS", false);
        c.setControlEncoding("UTF-8");
        c.setTrustManager(TrustManagerUtils.getAcceptAllTrustManager());
        c.setEndpointCheckingEnabled(false);
        c.setDefaultTimeout(10_000);
        InetSocketAddress a = s.addresses().get(0);
        c.connect(a.getAddress(), a.getPort());
        return c;
    }

    static String send(FTPSClient c, String line) throws IOException {
        int space = line.indexOf(' ');
        if (space < 0) {
            c.sendCommand(line);
        } else {
            c.sendCommand(line.substring(0, space), line.substring(space + 1));
        }
        return c.getReplyString().strip();
    }

    static String hex(String jcaName, byte[] bytes, int from, int to) throws Exception {
        MessageDigest md = MessageDigest.getInstance(jcaName);
        md.update(bytes, from, to - from);
        return HexFormat.of().formatHex(md.digest());
    }

    static String checksum(Checksum c, byte[] bytes, int from, int to) {
        c.update(bytes, from, to - from);
        return String.format("%08x", c.getValue());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"XCRC, CRC32", "XMD5, MD5", "XSHA1, SHA-1", "XSHA256, SHA-256", "XSHA512, SHA-512"})
    void xCommandsAnswerTheValueInUpperCaseHex(String verb, String algorithm) throws Exception {
        FTPSClient c = client(server);
        String whole = algorithm.equals("CRC32") ? checksum(new CRC32(), big, 0, big.length) : hex(algorithm, big, 0, big.length);
        assertEquals("250 " + whole.toUpperCase(Locale.ROOT), send(c, verb + " big.bin"));
        assertEquals("250 " + whole.toUpperCase(Locale.ROOT), send(c, verb + " \"/big.bin\""), "WinSCP quotes");
        // GlobalSCAPE's range after a quoted path: start inclusive, end exclusive (ProFTPD's reading)
        String part = algorithm.equals("CRC32") ? checksum(new CRC32(), big, 1000, 70_001) : hex(algorithm, big, 1000, 70_001);
        assertEquals("250 " + part.toUpperCase(Locale.ROOT), send(c, verb + " \"big.bin\" 1000 70001"));
        // FluentFTP sends the path unquoted, blanks and trailing numbers included: the whole argument is the path
        String named = algorithm.equals("CRC32") ? checksum(new CRC32(), spaced, 0, spaced.length)
                : hex(algorithm, spaced, 0, spaced.length);
        assertEquals("250 " + named.toUpperCase(Locale.ROOT), send(c, verb + " dir/with space 1 2.txt"));
        c.disconnect();
    }

    @Test
    void cksmAnswersEveryGridFtpAlgorithmAndRange() throws Exception {
        FTPSClient c = client(server);
        assertEquals("213 " + checksum(new Adler32(), big, 0, big.length), send(c, "CKSM ADLER32 0 -1 big.bin"));
        assertEquals("213 " + checksum(new Adler32(), big, 0, big.length), send(c, "CKSM adler32 0 -1 /big.bin"));
        assertEquals("213 " + checksum(new CRC32(), big, 0, big.length), send(c, "CKSM CRC32 0 -1 big.bin"));
        assertEquals("213 " + hex("MD5", big, 0, big.length), send(c, "CKSM MD5 0 -1 big.bin"));
        assertEquals("213 " + hex("SHA-1", big, 0, big.length), send(c, "CKSM SHA1 0 -1 big.bin"));
        assertEquals("213 " + hex("SHA-256", big, 0, big.length), send(c, "CKSM SHA256 0 -1 big.bin"));
        assertEquals("213 " + hex("SHA-512", big, 0, big.length), send(c, "CKSM SHA512 0 -1 big.bin"));
        assertEquals("213 " + hex("SHA-256", big, 12_345, 12_345 + 1_000_000), send(c, "CKSM SHA256 12345 1000000 big.bin"));
        assertEquals("213 " + checksum(new Adler32(), big, 2_000_000, big.length), send(c, "CKSM ADLER32 2000000 -1 big.bin"));
        assertEquals("213 " + hex("MD5", big, 0, 0), send(c, "CKSM MD5 " + big.length + " -1 big.bin"), "nothing left");
        assertEquals("213 " + hex("SHA-256", spaced, 0, spaced.length), send(c, "CKSM SHA256 0 -1 dir/with space 1 2.txt"));
        assertEquals("213 " + checksum(new Adler32(), new byte[0], 0, 0), send(c, "CKSM ADLER32 0 -1 empty.bin"));
        c.disconnect();
    }

    @Test
    void hashDigestsTheRangeRangSetForItOnly() throws Exception {
        FTPSClient c = client(server);
        assertEquals(350, c.sendCommand("RANG", "0 49"), c.getReplyString());
        assertEquals("213 SHA-256 0-49 " + hex("SHA-256", big, 0, 50) + " big.bin", send(c, "HASH big.bin"),
                "draft-bryan-ftpext-hash §3.4: the end inclusive");
        assertEquals("213 SHA-256 0-" + big.length + " " + hex("SHA-256", big, 0, big.length) + " big.bin",
                send(c, "HASH big.bin"), "the range served one HASH");
        assertEquals(200, c.sendCommand("OPTS", "HASH SHA-512"));
        assertEquals(350, c.sendCommand("RANG", "1000 1999999"));
        assertEquals("213 SHA-512 1000-1999999 " + hex("SHA-512", big, 1000, 2_000_000) + " big.bin", send(c, "HASH big.bin"));
        assertEquals(350, c.sendCommand("RANG", "10 20"));
        assertEquals(200, c.sendCommand("NOOP"));
        assertTrue(send(c, "HASH big.bin").startsWith("213 SHA-512 0-" + big.length + " "), "another command cleared it");
        assertEquals(350, c.sendCommand("RANG", "10 20"));
        assertEquals(350, c.sendCommand("RANG", "1 0"), "the draft's reset");
        assertTrue(send(c, "HASH big.bin").startsWith("213 SHA-512 0-" + big.length + " "));
        assertEquals(350, c.sendCommand("RANG", "0 " + big.length));
        assertTrue(send(c, "HASH big.bin").startsWith("501 "), "one byte past the end: " + c.getReplyString());
        assertEquals(501, c.sendCommand("RANG", "20 10"));
        assertEquals(200, c.sendCommand("OPTS", "HASH CRC32"));
        assertEquals(350, c.sendCommand("RANG", "5 5"));
        assertEquals("213 CRC32 5-5 " + checksum(new CRC32(), big, 5, 6) + " big.bin", send(c, "HASH big.bin"));
        c.disconnect();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "XCRC",
        "XMD5 \"big.bin",
        "XMD5 \"\" 1 2",
        "XMD5 \"big.bin\" 5",
        "XMD5 \"big.bin\" 5 5",
        "XMD5 \"big.bin\" 9 3",
        "XMD5 \"big.bin\" a b",
        "XMD5 \"big.bin\" 1 2 3",
        "XMD5 \"big.bin\" -1 2",
        "XSHA1 \"big.bin\" 0 99999999999999999999",
        "XSHA256 \"big.bin\" 0 9223372036854775807",
        "XSHA512 \"big.bin\" 2097185 2097186",
        "CKSM",
        "CKSM MD5 0 -1",
        "CKSM MD5 -1 -1 big.bin",
        "CKSM MD5 0 -2 big.bin",
        "CKSM MD5 x -1 big.bin",
        "CKSM MD5 9223372036854775807 9223372036854775807 big.bin",
        "CKSM BLAKE3 0 -1 big.bin",
        "CKSM SHA-256 0 -1 big.bin",
        "CKSM MD5 2097186 -1 big.bin",
        "CKSM MD5 0 2097186 big.bin",
        "RANG",
        "RANG 1",
        "RANG a b",
        "RANG 5 3",
        "RANG 0 9223372036854775807",
        "RANG -1 5",
    })
    void badArgumentsAreAnswered501(String line) throws Exception {
        FTPSClient c = client(server);
        assertTrue(send(c, line).startsWith("501 "), line + " -> " + c.getReplyString());
        assertEquals(200, c.sendCommand("NOOP"), "the session goes on");
        c.disconnect();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "XCRC nothing.bin",
        "XSHA256 \"nothing.bin\" 0 1",
        "CKSM MD5 0 -1 nothing.bin",
        "HASH nothing.bin",
        "XMD5 dir",
        "CKSM SHA1 0 -1 /dir",
        "XMD5 escape.txt",
        "CKSM MD5 0 -1 escape.txt",
        "XSHA1 ../../outside/secret.txt",
        "XSHA1 \"/../outside/secret.txt\"",
    })
    void missingFilesDirectoriesAndEscapesAreAnswered550(String line) throws Exception {
        FTPSClient c = client(server);
        String reply = send(c, line);
        assertTrue(reply.startsWith("550 "), line + " -> " + reply);
        assertTrue(!reply.contains(tmp.toString()), "no real path: " + reply);
        c.disconnect();
    }

    @Test
    void checksumsNeedALogin() throws Exception {
        FTPSClient c = connected(server);
        for (String line : List.of("XCRC big.bin", "CKSM MD5 0 -1 big.bin", "RANG 0 1", "HASH big.bin")) {
            assertTrue(send(c, line).startsWith("530 "), line + " -> " + c.getReplyString());
        }
        c.disconnect();
    }

    @Test
    void eachConnectionReadsNoMoreThanItsAllowance() throws Exception {
        // a bucket of 3 MiB that refills at 1 byte per second: each read of big.bin (2 MiB) is charged in full
        try (FspServer limited = TestServers.start(root, tmp.resolve("state-limited"),
                Map.of("checksum-burst", List.of(Long.toString(3L << 20)), "checksum-rate", List.of("1")))) {
            FTPSClient c = client(limited);
            assertTrue(send(c, "XCRC big.bin").startsWith("250 "), c.getReplyString());
            assertTrue(send(c, "CKSM MD5 0 -1 big.bin").startsWith("213 "), "1 MiB left: may start, ends below zero");
            for (String line : List.of("XSHA256 big.bin", "CKSM ADLER32 0 10 big.bin", "HASH empty.bin")) {
                String reply = send(c, line);
                assertTrue(reply.matches("450 Checksum limit of this connection reached; try again in \\d+ s"),
                        line + " -> " + reply);
            }
            assertEquals(200, c.sendCommand("NOOP"), "the session goes on");
            FTPSClient other = client(limited);
            assertTrue(send(other, "XCRC big.bin").startsWith("250 "), "another connection has its own allowance");
            other.disconnect();
            c.disconnect();
        }
    }

    @Test
    void filesStayUnchanged() throws Exception {
        assertTrue(Arrays.equals(big, Files.readAllBytes(root.resolve("big.bin"))));
    }
}
