package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The checksum commands (XCRC, XMD5, XSHA1, XSHA256, XSHA512, CKSM, HASH after RANG) of the server process, sent
 * by Python's ftplib as raw commands over a plain and a TLS control connection; the script checks every value
 * against hashlib and zlib over the bytes RETR delivered, the refusals, and the per-connection allowance
 * ({@code src/test/resources/python/ftplib_checksums.py}).
 */
class ChecksumCommandsIT {
    /** A small allowance, so that the script can use it up: 8 MiB, refilled at 1 byte per second. */
    private static final Path CONFIG = config("checksum-burst = 8388608\nchecksum-rate = 1\n");

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed().with("--config", CONFIG.toString());

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void pythonFtplibChecksTheValuesRangesRefusalsAndTheAllowance(boolean tls) throws Exception {
        ExternalTool python = ExternalTool.require("python3", "python3", SERVER.transcript());
        Path dir = SERVER.tree().dir("checksums-" + tls);
        TestTree.write(dir.resolve("data.bin"), TestTree.randomBytes(100_003, 11));
        TestTree.write(dir.resolve("name with blanks 7 8.bin"), "blanks\n".getBytes(StandardCharsets.UTF_8));
        TestTree.write(dir.resolve("big.bin"), TestTree.randomBytes(5 << 20, 12));
        TestTree.write(SERVER.tree().outside().resolve("secret.txt"), "secret".getBytes(StandardCharsets.UTF_8));
        Files.createSymbolicLink(dir.resolve("escape.txt"), SERVER.tree().outside().resolve("secret.txt"));
        List<String> args = new ArrayList<>(List.of(script().toString(), "127.0.0.1", String.valueOf(SERVER.port()),
                FtpServerExtension.USER, FtpServerExtension.PASSWORD, dir.getFileName().toString()));
        if (tls) {
            args.add("--tls");
        }

        ExternalTool.Result result = python.run(Duration.ofSeconds(100), args).assertSuccess();

        assertTrue(result.stdout().contains("CHECKSUMS OK"), result::describe);
    }

    private static Path config(String text) {
        try {
            Path file = Files.createTempFile("fsp-checksums-", ".conf");
            file.toFile().deleteOnExit();
            return Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path script() throws URISyntaxException {
        return Path.of(ChecksumCommandsIT.class.getResource("/python/ftplib_checksums.py").toURI());
    }
}
