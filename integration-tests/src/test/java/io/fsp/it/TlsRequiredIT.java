package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPClient;
import org.apache.commons.net.ftp.FTPSClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The quick-start server with its safe default: no {@code --allow-plain-login}, so PASS is refused
 * on an unencrypted control channel and every client logs in after AUTH TLS (RFC 4217).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsRequiredIT {
    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.tlsRequired();

    @TempDir
    Path local;

    /** {@code --user NAME} takes the password from $FSP_PASSWORD_NAME: it never shows in the process list. */
    @Test
    void userWhosePasswordComesFromTheEnvironmentLogsIn() throws Exception {
        try (io.fsp.it.harness.ServerProcess server = io.fsp.it.harness.ServerProcess.start(local, List.of("--listen",
                "127.0.0.1:0", "--root", local.toString(), "--user", "carol-b", "--state-dir", local.resolve("state").toString()),
                1, java.util.Map.of("FSP_PASSWORD_CAROL_B", "from the environment"))) {
            assertFalse(String.join(" ", server.command()).contains("from the environment"), "not on the command line");
            FTPSClient ftps = new FTPSClient("TLS", false);
            ftps.setTrustManager(new ControlConnection.AcceptAnyCertificate());
            ftps.connect("127.0.0.1", server.ipv4().getPort());
            assertTrue(ftps.login("carol-b", "from the environment"), ftps::getReplyString);
            ftps.logout();
            ftps.disconnect();
        }
    }

    @Test
    void passwordOnPlainControlChannelIsRefused() throws Exception {
        try (ControlConnection c = ControlConnection.open(SERVER.server().ipv4(), SERVER.transcript())) {
            c.sendLine("USER " + FtpServerExtension.USER);
            c.readReply().assertCodeIn(331, 530);
            c.send("PASS " + FtpServerExtension.PASSWORD).assertCodeIn(530, 503);
            c.send("PWD").assertCode(530);
        }
        FTPClient plain = new FTPClient();
        plain.connect("127.0.0.1", SERVER.port());
        assertFalse(plain.login(FtpServerExtension.USER, FtpServerExtension.PASSWORD));
        assertEquals(530, plain.getReplyCode(), plain::getReplyString);
        plain.disconnect();
    }

    @Test
    void rawTlsSessionOrderAndCertificateFingerprint() throws Exception {
        try (ControlConnection c = ControlConnection.open(SERVER.server().ipv4(), SERVER.transcript())) {
            c.send("PBSZ 0").assertCodeIn(503, 530);
            c.send("AUTH KERBEROS").assertCodeIn(504, 502, 534, 431);
            X509Certificate certificate = c.startTls();
            assertEquals(SERVER.server().certificateFingerprint().replace(":", "").toLowerCase(),
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded())),
                    "the certificate presented is the one whose fingerprint the server printed");
            c.send("USER " + FtpServerExtension.USER).assertCode(331);
            c.send("PASS " + FtpServerExtension.PASSWORD).assertCode(230);
            c.send("PROT P").assertCodeIn(503, 200);
            c.send("PBSZ 0").assertCode(200);
            c.send("PROT X").assertCodeIn(504, 501, 536);
            c.send("PROT P").assertCode(200);
            c.send("FEAT").assertCode(211);
            c.send("QUIT").assertCode(221);
        }
    }

    @Test
    void commonsNetFtpsClientLogsInAndTransfers() throws Exception {
        FTPSClient ftps = new FTPSClient("TLS", false);
        ftps.setTrustManager(new ControlConnection.AcceptAnyCertificate());
        ftps.connect("127.0.0.1", SERVER.port());
        assertTrue(ftps.login(FtpServerExtension.USER, FtpServerExtension.PASSWORD), ftps::getReplyString);
        ftps.execPBSZ(0);
        ftps.execPROT("P");
        ftps.enterLocalPassiveMode();
        ftps.setFileType(FTP.BINARY_FILE_TYPE);
        Path dir = SERVER.tree().dir("tls-commons");
        byte[] data = TestTree.randomBytes(500_000, 8);
        assertTrue(ftps.storeFile("/tls-commons/a.bin", new ByteArrayInputStream(data)), ftps::getReplyString);
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("a.bin")));
        ByteArrayOutputStream back = new ByteArrayOutputStream();
        assertTrue(ftps.retrieveFile("/tls-commons/a.bin", back), ftps::getReplyString);
        assertArrayEquals(data, back.toByteArray());
        ftps.logout();
        ftps.disconnect();
    }

    @Test
    void curlNeedsSslReqd() throws Exception {
        ExternalTool curl = ExternalTool.require("curl", "curl", SERVER.transcript());
        Path dir = SERVER.tree().dir("tls-curl");
        byte[] data = TestTree.randomBytes(300_000, 9);
        TestTree.write(dir.resolve("a.bin"), data);
        String user = FtpServerExtension.USER + ":" + FtpServerExtension.PASSWORD;

        ExternalTool.Result plain = curl.run(Duration.ofSeconds(30), "-sS", "--user", user,
                "-o", local.resolve("plain.bin").toString(), SERVER.url("tls-curl/a.bin"));
        assertEquals(67, plain.exitCode(), () -> "curl: login denied on a plain channel: " + plain.describe());

        curl.run(Duration.ofSeconds(30), "-sS", "--ssl-reqd", "-k", "--user", user,
                "-o", local.resolve("tls.bin").toString(), SERVER.url("tls-curl/a.bin")).assertSuccess();
        assertArrayEquals(data, Files.readAllBytes(local.resolve("tls.bin")));
    }

    @ParameterizedTest(name = "TLS {0}")
    @ValueSource(strings = {"1.2", "1.3"})
    void acceptsTls12And13(String version) throws Exception {
        ExternalTool curl = ExternalTool.require("curl", "curl", SERVER.transcript());
        Path dir = SERVER.tree().dir("tls-version-" + version);
        TestTree.write(dir.resolve("v.txt"), version.getBytes());
        ExternalTool.Result result = curl.run(Duration.ofSeconds(30), "-v", "-sS", "--ssl-reqd", "-k",
                "--tlsv" + version, "--tls-max", version,
                "--user", FtpServerExtension.USER + ":" + FtpServerExtension.PASSWORD,
                SERVER.url("tls-version-" + version + "/v.txt")).assertSuccess();
        assertEquals(version, result.stdout());
        assertTrue(result.stderr().contains("TLSv" + version), result::describe);
    }

    @Test
    void lftpWithSslForce() throws Exception {
        ExternalTool lftp = ExternalTool.require("lftp", "lftp", SERVER.transcript());
        Path dir = SERVER.tree().dir("tls-lftp");
        byte[] data = TestTree.randomBytes(700_000, 10);
        Path source = TestTree.write(local.resolve("up.bin"), data);
        ExternalTool.Result result = lftp.run(Duration.ofSeconds(50), "-c", String.join("; ",
                "set cmd:fail-exit yes", "set net:max-retries 1", "set ssl:verify-certificate no",
                "set ftp:ssl-force true", "set ftp:ssl-protect-data true",
                "open -u " + FtpServerExtension.USER + "," + FtpServerExtension.PASSWORD
                        + " ftp://127.0.0.1:" + SERVER.port(),
                "put " + source + " -o /tls-lftp/up.bin",
                "get /tls-lftp/up.bin -o " + local.resolve("down.bin"),
                "cls -1 /tls-lftp/"));
        result.assertSuccess();
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("up.bin")));
        assertArrayEquals(data, Files.readAllBytes(local.resolve("down.bin")));
        assertTrue(result.stdout().contains("up.bin"), result::describe);
    }

    @Test
    void pythonFtpTlsWithProtP() throws Exception {
        ExternalTool python = ExternalTool.require("python3", "python3", SERVER.transcript());
        Path dir = SERVER.tree().dir("tls-ftplib");
        python.run(Duration.ofSeconds(100), PythonFtplibIT.script().toString(), "127.0.0.1",
                String.valueOf(SERVER.port()), FtpServerExtension.USER, FtpServerExtension.PASSWORD,
                dir.getFileName().toString(), "--tls").assertSuccess();
        assertTrue(Files.isRegularFile(dir.resolve("data.bin")));
    }
}
