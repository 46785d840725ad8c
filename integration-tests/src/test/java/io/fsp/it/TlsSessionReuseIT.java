package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --require-tls-session-reuse}: protected data connections must resume the control
 * connection's TLS session. curl and lftp do, and keep working; Python's ftplib cannot resume
 * sessions, and its transfer is refused while its control connection goes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsSessionReuseIT {
    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.tlsRequired().with("--require-tls-session-reuse");

    /** One PROT P download with ftplib, then NOOP; prints the outcome of each. */
    private static final String FTPLIB = String.join("\n",
            "import ftplib, ssl, sys, io",
            "ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE",
            "f = ftplib.FTP_TLS(context=ctx, timeout=20)",
            "f.connect('127.0.0.1', int(sys.argv[1])); f.auth(); f.login(sys.argv[2], sys.argv[3]); f.prot_p()",
            "try:",
            "    f.retrbinary('RETR /reuse/a.bin', io.BytesIO().write); print('RETR OK')",
            "except Exception as e:",
            "    print('RETR FAILED', type(e).__name__, e)",
            "print('NOOP', f.sendcmd('NOOP'))",
            "");

    @TempDir
    Path local;

    @Test
    void resumingClientsWorkAndOthersAreRefused() throws Exception {
        byte[] data = TestTree.randomBytes(300_000, 31);
        TestTree.write(SERVER.tree().dir("reuse").resolve("a.bin"), data);
        String user = FtpServerExtension.USER + ":" + FtpServerExtension.PASSWORD;

        ExternalTool curl = ExternalTool.require("curl", "curl", SERVER.transcript());
        ExternalTool.Result download = curl.run(Duration.ofSeconds(30), "-v", "-sS", "--ssl-reqd", "-k", "--user", user,
                "-o", local.resolve("curl.bin").toString(), SERVER.url("reuse/a.bin")).assertSuccess();
        assertArrayEquals(data, Files.readAllBytes(local.resolve("curl.bin")));
        assertTrue(download.stderr().contains("SSL re-using session ID"), "curl resumed the session");

        ExternalTool lftp = ExternalTool.require("lftp", "lftp", SERVER.transcript());
        lftp.run(Duration.ofSeconds(40), "-c", String.join("; ", "set cmd:fail-exit yes", "set net:max-retries 1",
                "set ssl:verify-certificate no", "set ftp:ssl-force true", "set ftp:ssl-protect-data true",
                "open -u " + FtpServerExtension.USER + "," + FtpServerExtension.PASSWORD + " ftp://127.0.0.1:" + SERVER.port(),
                "get /reuse/a.bin -o " + local.resolve("lftp.bin"))).assertSuccess();
        assertArrayEquals(data, Files.readAllBytes(local.resolve("lftp.bin")));

        ExternalTool python = ExternalTool.require("python3", "python3", SERVER.transcript());
        ExternalTool.Result ftplib = python.run(Duration.ofSeconds(40), "-c", FTPLIB, String.valueOf(SERVER.port()),
                FtpServerExtension.USER, FtpServerExtension.PASSWORD).assertSuccess();
        assertTrue(ftplib.stdout().contains("RETR FAILED"), ftplib::describe);
        assertNotEquals(-1, ftplib.stdout().indexOf("NOOP 200"), () -> "the control connection goes on: " + ftplib.describe());
    }
}
