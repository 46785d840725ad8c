package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.Reply;
import io.fsp.it.harness.TestTree;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A file just over 1 GiB (sparse, so it is quick to create; random islands every 16 MiB) through
 * the plain zero-copy RETR path to curl, hashed on the fly, and back up with STOR; both compared
 * by SHA-256, and by the server's own HASH command.
 */
class LargeFileIT {
    private static final long SIZE = (1L << 30) + 4099;

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed();

    private static Path source;
    private static String expected;

    @BeforeAll
    static void createLargeFile() throws Exception {
        source = TestTree.sparseFile(SERVER.tree().dir("large").resolve("big.bin"), SIZE, 1234);
        assertEquals(SIZE, Files.size(source));
        expected = TestTree.sha256(source);
    }

    private static String user() {
        return FtpServerExtension.USER + ":" + FtpServerExtension.PASSWORD;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void oneGibibyteDownloadArrivesIntact() throws Exception {
        ExternalTool curl = ExternalTool.require("curl", "curl", SERVER.transcript());
        long start = System.nanoTime();
        ExternalTool.Running download = curl.startStreaming(List.of("-sS", "--max-time", "150",
                "--user", user(), "-o", "-", SERVER.url("large/big.bin")));
        String received;
        try (InputStream in = download.process().getInputStream()) {
            received = TestTree.sha256(in);
        }
        download.await(Duration.ofSeconds(30)).assertSuccess();
        SERVER.transcript().add(String.format(Locale.ROOT, "1 GiB download in %d ms (with hashing)",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
        assertEquals(expected, received, "SHA-256 of what curl received");
        assertServerHash("/large/big.bin");
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void oneGibibyteUploadIsStoredIntact() throws Exception {
        ExternalTool curl = ExternalTool.require("curl", "curl", SERVER.transcript());
        Path dir = SERVER.tree().dir("large-upload");
        curl.run(Duration.ofSeconds(150), "-sS", "--max-time", "140", "--user", user(),
                "-T", source.toString(), SERVER.url("large-upload/copy.bin")).assertSuccess();
        Path stored = dir.resolve("copy.bin");
        assertEquals(SIZE, Files.size(stored));
        assertEquals(expected, TestTree.sha256(stored), "SHA-256 of what the server stored");
        assertServerHash("/large-upload/copy.bin");
        Files.delete(stored);
    }

    private static void assertServerHash(String path) throws Exception {
        try (ControlConnection c = ControlConnection.login(SERVER.server().ipv4(), FtpServerExtension.USER,
                FtpServerExtension.PASSWORD, SERVER.transcript())) {
            c.send("SIZE " + path).assertCode(213);
            c.send("OPTS HASH SHA-256").assertCode(200);
            c.socket().setSoTimeout(120_000); // the server reads 1 GiB to answer
            Reply hash = c.send("HASH " + path).assertCode(213);
            assertTrue(hash.text().toLowerCase(Locale.ROOT).contains(expected), hash::text);
            // The draft's range end: accepted as the length or as the last byte's offset.
            assertTrue(hash.text().contains(" 0-" + SIZE + " ") || hash.text().contains(" 0-" + (SIZE - 1) + " "),
                    () -> "HASH covers the whole file: " + hash);
        }
    }
}
