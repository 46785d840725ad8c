package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.X509TrustManager;
import org.apache.commons.net.PrintCommandListener;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPClient;
import org.apache.commons.net.ftp.FTPFile;
import org.apache.commons.net.ftp.FTPReply;
import org.apache.commons.net.ftp.FTPSClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Apache Commons Net {@link FTPClient} and {@link FTPSClient} (explicit TLS, whose default is
 * active mode) against the server process: the whole command list, passive and active, IPv4 and
 * IPv6, binary and ASCII, REST for RETR and STOR, listings parsed by the client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommonsNetIT {
    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed();

    private final StringWriter dialogue = new StringWriter();
    private FTPClient client;

    @AfterEach
    void disconnect() throws IOException {
        SERVER.transcript().add("commons-net dialogue:\n" + dialogue);
        if (client != null && client.isConnected()) {
            client.disconnect();
        }
    }

    private FTPClient connect(FTPClient ftp, boolean ipv6) throws IOException {
        client = ftp;
        ftp.addProtocolCommandListener(new PrintCommandListener(new PrintWriter(dialogue, true), true));
        ftp.setDefaultTimeout(20_000);
        ftp.setDataTimeout(java.time.Duration.ofSeconds(20));
        ftp.connect(ipv6 ? "::1" : "127.0.0.1", ipv6 ? SERVER.ipv6Port() : SERVER.port());
        assertTrue(FTPReply.isPositiveCompletion(ftp.getReplyCode()), ftp::getReplyString);
        return ftp;
    }

    private void login(FTPClient ftp) throws IOException {
        assertTrue(ftp.login(FtpServerExtension.USER, FtpServerExtension.PASSWORD), ftp::getReplyString);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "passive-ipv4, true,  false",
        "active-ipv4,  false, false",
        "passive-ipv6, true,  true",
        "active-ipv6,  false, true",
    })
    void plainSessionCoversCommandList(String name, boolean passive, boolean ipv6) throws IOException {
        FTPClient ftp = connect(new FTPClient(), ipv6);
        login(ftp);
        if (passive) {
            ftp.enterLocalPassiveMode();
        }
        Path dir = SERVER.tree().dir("commons-" + name);
        walkCommandList(ftp, dir);
        assertTrue(ftp.logout(), ftp::getReplyString);
        String wire = dialogue.toString();
        String expected = ipv6 ? (passive ? "EPSV" : "EPRT |2|") : (passive ? "PASV" : "PORT 127,0,0,1,");
        assertTrue(wire.contains(expected), () -> "data connections use " + expected + ":\n" + wire);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "tls-active-ipv4,  false, false",
        "tls-passive-ipv4, true,  false",
        "tls-passive-ipv6, true,  true",
        "tls-active-ipv6,  false, true",
    })
    void explicitTlsSessionWithProtP(String name, boolean passive, boolean ipv6) throws IOException {
        AtomicReference<X509Certificate> seen = new AtomicReference<>();
        FTPSClient ftps = new FTPSClient("TLS", false);
        ftps.setTrustManager(recordingTrustManager(seen));
        connect(ftps, ipv6);
        login(ftps);
        ftps.execPBSZ(0);
        ftps.execPROT("P");
        assertEquals(200, ftps.getReplyCode(), ftps::getReplyString);
        if (passive) {
            ftps.enterLocalPassiveMode();
        }
        Path dir = SERVER.tree().dir("commons-" + name);
        walkCommandList(ftps, dir);
        assertTrue(ftps.logout(), ftps::getReplyString);

        assertNotNull(seen.get(), "the client saw the server's certificate");
        assertEquals(SERVER.server().certificateFingerprint().replace(":", "").toLowerCase(),
                fingerprint(seen.get()), "the certificate on the wire is the one the server printed");
        assertTrue(dialogue.toString().contains("AUTH TLS"), dialogue::toString);
    }

    @Test
    void protClearDataChannelUnderTlsControl() throws IOException {
        FTPSClient ftps = new FTPSClient("TLS", false);
        ftps.setTrustManager(recordingTrustManager(new AtomicReference<>()));
        connect(ftps, false);
        login(ftps);
        ftps.execPBSZ(0);
        ftps.execPROT("C");
        ftps.enterLocalPassiveMode();
        ftps.setFileType(FTP.BINARY_FILE_TYPE);
        Path dir = SERVER.tree().dir("commons-prot-c");
        byte[] data = TestTree.randomBytes(200_000, 3);
        assertTrue(ftps.storeFile("/commons-prot-c/clear.bin", new ByteArrayInputStream(data)), ftps::getReplyString);
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("clear.bin")));
        assertArrayEquals(data, retrieve(ftps, "/commons-prot-c/clear.bin"));
    }

    @Test
    void abortStopsRunningDownloadAndSessionContinues() throws IOException {
        FTPClient ftp = connect(new FTPClient(), false);
        login(ftp);
        ftp.enterLocalPassiveMode();
        ftp.setFileType(FTP.BINARY_FILE_TYPE);
        Path dir = SERVER.tree().dir("commons-abor");
        TestTree.write(dir.resolve("big.bin"), new byte[32 * 1024 * 1024]);
        InputStream in = ftp.retrieveFileStream("/commons-abor/big.bin");
        assertNotNull(in, ftp::getReplyString);
        assertEquals(64 * 1024, in.readNBytes(64 * 1024).length);
        // ABOR while the data connection is open and unread: RFC 959 §4.1.3 says 426 for the
        // transfer, then 226 for the ABOR (or a single 225/226 if the transfer already ended).
        ftp.abort();
        int code = ftp.getReplyCode();
        if (code == 426) {
            code = ftp.getReply();
        }
        assertTrue(code == 225 || code == 226, ftp::getReplyString);
        in.close();
        try {
            assertEquals(List.of(), SERVER.server().awaitNoOpenFilesUnder(dir, java.time.Duration.ofSeconds(5)),
                    "the server closed the file of the aborted download");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertTrue(ftp.sendNoOp(), ftp::getReplyString);
    }

    @Test
    void utf8AndBlankFileNamesRoundTrip() throws IOException {
        FTPClient ftp = new FTPClient();
        ftp.setControlEncoding("UTF-8");
        connect(ftp, false);
        login(ftp);
        assertEquals(200, ftp.sendCommand("OPTS", "UTF8 ON"), ftp::getReplyString);
        ftp.enterLocalPassiveMode();
        ftp.setFileType(FTP.BINARY_FILE_TYPE);
        Path dir = SERVER.tree().dir("commons-names");
        List<String> names = List.of("grüße.txt", "日本語 ファイル.bin", "two  spaces .txt", "Ωmega");
        for (String name : names) {
            byte[] data = name.getBytes(StandardCharsets.UTF_8);
            assertTrue(ftp.storeFile("/commons-names/" + name, new ByteArrayInputStream(data)), ftp::getReplyString);
            assertArrayEquals(data, Files.readAllBytes(dir.resolve(name)), name);
            assertArrayEquals(data, retrieve(ftp, "/commons-names/" + name), name);
        }
        assertTrue(ftp.changeWorkingDirectory("/commons-names"), ftp::getReplyString);
        assertEquals(names.stream().sorted().toList(),
                Arrays.stream(entries(ftp.mlistDir())).map(FTPFile::getName).sorted().toList(), "MLSD names");
        assertEquals(names.stream().sorted().toList(),
                Arrays.stream(entries(ftp.listFiles())).map(FTPFile::getName).sorted().toList(), "LIST names");
        assertTrue(ftp.rename("Ωmega", "ωmega"), ftp::getReplyString);
        assertTrue(Files.exists(dir.resolve("ωmega")));
    }

    /** Everything the command list covers, in one directory, checking what lands on disk. */
    private void walkCommandList(FTPClient ftp, Path dir) throws IOException {
        String base = "/" + dir.getFileName();
        assertEquals(215, ftp.syst(), ftp::getReplyString);
        assertNotNull(ftp.getSystemType());
        assertTrue(ftp.features(), ftp::getReplyString);
        for (String feature : List.of("UTF8", "SIZE", "MDTM", "REST", "MLST", "EPSV", "HASH")) {
            assertTrue(ftp.hasFeature(feature), () -> "FEAT lists " + feature + ": " + ftp.getReplyString());
        }
        assertEquals(200, ftp.sendCommand("OPTS", "UTF8 ON"), ftp::getReplyString);
        assertTrue(ftp.sendNoOp(), ftp::getReplyString);
        assertNotNull(ftp.listHelp(), ftp::getReplyString);
        assertNotNull(ftp.getStatus(), ftp::getReplyString);
        assertTrue(ftp.setFileTransferMode(FTP.STREAM_TRANSFER_MODE), ftp::getReplyString);
        assertTrue(ftp.setFileStructure(FTP.FILE_STRUCTURE), ftp::getReplyString);

        // Directories
        assertTrue(ftp.changeWorkingDirectory(base), ftp::getReplyString);
        assertEquals(base, ftp.printWorkingDirectory());
        assertTrue(ftp.makeDirectory("sub"), ftp::getReplyString);
        assertTrue(Files.isDirectory(dir.resolve("sub")));
        assertTrue(ftp.changeWorkingDirectory("sub"), ftp::getReplyString);
        assertEquals(base + "/sub", ftp.printWorkingDirectory());
        assertTrue(ftp.changeToParentDirectory(), ftp::getReplyString);
        assertEquals(base, ftp.printWorkingDirectory());
        assertFalse(ftp.changeWorkingDirectory("missing"), "CWD into a missing directory fails");
        assertEquals(550, ftp.getReplyCode(), ftp::getReplyString);

        // Binary: STOR, SIZE, MDTM, RETR, REST + RETR, REST + STOR, APPE, STOU, ALLO
        assertTrue(ftp.setFileType(FTP.BINARY_FILE_TYPE), ftp::getReplyString);
        byte[] data = TestTree.randomBytes(1_000_003, 11);
        assertTrue(ftp.allocate(data.length), ftp::getReplyString);
        assertTrue(ftp.storeFile("data.bin", new ByteArrayInputStream(data)), ftp::getReplyString);
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("data.bin")));
        assertEquals(String.valueOf(data.length), ftp.getSize("data.bin"));
        String mdtm = ftp.getModificationTime("data.bin");
        assertNotNull(mdtm, ftp::getReplyString);
        assertTrue(mdtm.matches("\\d{14}(\\.\\d+)?"), mdtm);
        assertArrayEquals(data, retrieve(ftp, "data.bin"));
        ftp.setRestartOffset(654_321);
        assertArrayEquals(Arrays.copyOfRange(data, 654_321, data.length), retrieve(ftp, "data.bin"));

        assertTrue(ftp.storeFile("resumed.bin", new ByteArrayInputStream(data, 0, 400_000)), ftp::getReplyString);
        ftp.setRestartOffset(400_000);
        assertTrue(ftp.storeFile("resumed.bin", new ByteArrayInputStream(data, 400_000, data.length - 400_000)),
                ftp::getReplyString);
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("resumed.bin")), "REST + STOR completes the file");

        assertTrue(ftp.appendFile("resumed.bin", new ByteArrayInputStream("more".getBytes(StandardCharsets.US_ASCII))),
                ftp::getReplyString);
        assertEquals(data.length + 4L, Files.size(dir.resolve("resumed.bin")));

        assertTrue(ftp.storeUniqueFile(new ByteArrayInputStream("unique".getBytes(StandardCharsets.US_ASCII))),
                ftp::getReplyString);
        try (var entries = Files.list(dir)) {
            List<Path> unique = entries.filter(p -> !List.of("sub", "data.bin", "resumed.bin")
                    .contains(p.getFileName().toString())).toList();
            assertEquals(1, unique.size(), () -> "STOU made one new file: " + unique);
            assertEquals("unique", Files.readString(unique.get(0)));
            assertTrue(ftp.deleteFile(unique.get(0).getFileName().toString()), ftp::getReplyString);
        }

        // ASCII: the client sends CRLF for each LF (ToNetASCIIOutputStream) and the server stores
        // LF; downloads come back as local text (the wire bytes are checked by curl and ftplib).
        Files.writeString(dir.resolve("unix.txt"), "alpha\nbeta\n");
        assertTrue(ftp.setFileType(FTP.ASCII_FILE_TYPE), ftp::getReplyString);
        assertEquals("alpha\nbeta\n", new String(retrieve(ftp, "unix.txt"), StandardCharsets.US_ASCII));
        assertTrue(ftp.storeFile("dos.txt", new ByteArrayInputStream("one\ntwo\n".getBytes(StandardCharsets.US_ASCII))),
                ftp::getReplyString);
        assertEquals("one\ntwo\n", Files.readString(dir.resolve("dos.txt")));
        assertTrue(ftp.setFileType(FTP.BINARY_FILE_TYPE), ftp::getReplyString);

        // Listings the client parses: LIST, MLSD, MLST, NLST
        // "." and ".." may be listed (type=cdir/pdir in MLSD); they are not entries of the directory.
        FTPFile[] list = entries(ftp.listFiles());
        assertEquals(List.of("data.bin", "dos.txt", "resumed.bin", "sub", "unix.txt"),
                Arrays.stream(list).map(FTPFile::getName).sorted().toList(), () -> Arrays.toString(list));
        FTPFile listed = Arrays.stream(list).filter(f -> f.getName().equals("data.bin")).findFirst().orElseThrow();
        assertEquals(data.length, listed.getSize());
        assertTrue(listed.isFile());
        assertTrue(Arrays.stream(list).filter(f -> f.getName().equals("sub")).findFirst().orElseThrow().isDirectory());

        FTPFile[] mlsd = entries(ftp.mlistDir());
        assertEquals(5, mlsd.length, () -> Arrays.toString(mlsd) + " " + ftp.getReplyString());
        FTPFile machine = Arrays.stream(mlsd).filter(f -> "data.bin".equals(f.getName())).findFirst().orElseThrow();
        assertEquals(data.length, machine.getSize());
        assertNotNull(machine.getTimestamp(), "MLSD gives modify=");
        FTPFile single = ftp.mlistFile("sub");
        assertNotNull(single, ftp::getReplyString);
        assertTrue(single.isDirectory(), single::getRawListing);

        String[] names = ftp.listNames();
        assertNotNull(names, ftp::getReplyString);
        assertEquals(List.of("data.bin", "dos.txt", "resumed.bin", "sub", "unix.txt"),
                Arrays.stream(names).map(n -> n.substring(n.lastIndexOf('/') + 1)).sorted().toList());

        // HASH, by default SHA-256 and after OPTS HASH the others
        assertEquals(213, ftp.sendCommand("HASH", "data.bin"), ftp::getReplyString);
        assertTrue(ftp.getReplyString().toLowerCase().contains(hex("SHA-256", data)), ftp::getReplyString);
        assertEquals(200, ftp.sendCommand("OPTS", "HASH MD5"), ftp::getReplyString);
        assertEquals(213, ftp.sendCommand("HASH", "data.bin"), ftp::getReplyString);
        assertTrue(ftp.getReplyString().toLowerCase().contains(hex("MD5", data)), ftp::getReplyString);
        assertEquals(200, ftp.sendCommand("OPTS", "HASH SHA-256"), ftp::getReplyString);

        // Rename, delete, directories
        assertTrue(ftp.rename("resumed.bin", "renamed.bin"), ftp::getReplyString);
        assertTrue(Files.exists(dir.resolve("renamed.bin")));
        assertFalse(Files.exists(dir.resolve("resumed.bin")));
        assertTrue(ftp.deleteFile("renamed.bin"), ftp::getReplyString);
        assertFalse(ftp.deleteFile("renamed.bin"));
        assertEquals(550, ftp.getReplyCode(), ftp::getReplyString);
        assertTrue(ftp.removeDirectory("sub"), ftp::getReplyString);
        assertFalse(Files.exists(dir.resolve("sub")));
        assertEquals(257, ftp.sendCommand("XMKD", "x"), ftp::getReplyString);
        assertEquals(250, ftp.sendCommand("XCWD", "x"), ftp::getReplyString);
        assertEquals(257, ftp.sendCommand("XPWD"), ftp::getReplyString);
        assertTrue(ftp.getReplyString().contains("\"" + base + "/x\""), ftp::getReplyString);
        assertEquals(250, ftp.sendCommand("CWD", ".."), ftp::getReplyString);
        assertEquals(250, ftp.sendCommand("XRMD", "x"), ftp::getReplyString);
        assertFalse(Files.exists(dir.resolve("x")));
    }

    private static FTPFile[] entries(FTPFile[] listed) {
        assertNotNull(listed);
        return Arrays.stream(listed).filter(f -> f != null && !f.getName().equals(".") && !f.getName().equals(".."))
                .toArray(FTPFile[]::new);
    }

    private static byte[] retrieve(FTPClient ftp, String name) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertTrue(ftp.retrieveFile(name, out), ftp::getReplyString);
        return out.toByteArray();
    }

    private static String hex(String algorithm, byte[] data) {
        return HexFormat.of().formatHex(TestTree.digest(algorithm).digest(data));
    }

    private static String fingerprint(X509Certificate certificate) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Accepts the self-signed certificate and records it, so the test can compare its fingerprint. */
    static X509TrustManager recordingTrustManager(AtomicReference<X509Certificate> seen) {
        return new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
                throw new CertificateException("no client certificates here");
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
                seen.set(chain[0]);
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
    }
}
