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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A file just over 1 GiB (sparse, so it is quick to create; random islands every 16 MiB) through
 * the plain zero-copy RETR path to curl, hashed on the fly and compared by SHA-256, and the same
 * digest from the server's own HASH command.
 */
class LargeFileIT {
    private static final long SIZE = (1L << 30) + 4099;

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed();

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void oneGibibyteArrivesIntact() throws Exception {
        ExternalTool curl = ExternalTool.require("curl", "curl", SERVER.transcript());
        Path dir = SERVER.tree().dir("large");
        Path file = TestTree.sparseFile(dir.resolve("big.bin"), SIZE, 1234);
        assertEquals(SIZE, Files.size(file));
        String expected = TestTree.sha256(file);

        long start = System.nanoTime();
        ExternalTool.Running download = curl.startStreaming(List.of("-sS", "--max-time", "150",
                "--user", FtpServerExtension.USER + ":" + FtpServerExtension.PASSWORD, "-o", "-",
                SERVER.url("large/big.bin")));
        String received;
        try (InputStream in = download.process().getInputStream()) {
            received = TestTree.sha256(in);
        }
        download.await(Duration.ofSeconds(30)).assertSuccess();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        SERVER.transcript().add(String.format(Locale.ROOT, "1 GiB over loopback in %d ms (with hashing)", millis));
        assertEquals(expected, received, "SHA-256 of what curl received");

        try (ControlConnection c = ControlConnection.login(SERVER.server().ipv4(), FtpServerExtension.USER,
                FtpServerExtension.PASSWORD, SERVER.transcript())) {
            c.send("SIZE /large/big.bin").assertCode(213);
            c.send("OPTS HASH SHA-256").assertCode(200);
            c.socket().setSoTimeout(120_000); // the server reads 1 GiB to answer
            Reply hash = c.send("HASH /large/big.bin").assertCode(213);
            assertTrue(hash.text().toLowerCase(Locale.ROOT).contains(expected), hash::text);
            // The draft's range end: accepted as the length or as the last byte's offset.
            assertTrue(hash.text().contains(" 0-" + SIZE + " ") || hash.text().contains(" 0-" + (SIZE - 1) + " "),
                    () -> "HASH covers the whole file: " + hash);
        }
    }
}
