package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FtpServerExtension;
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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Python's ftplib ({@code FTP} and {@code FTP_TLS} with {@code prot_p}) runs one whole session per
 * case: every command of the list, passive (PASV/EPSV) and active (PORT/EPRT), IPv4 and IPv6,
 * binary and ASCII, REST for RETR and STOR, STOU, APPE, listings parsed by ftplib (NLST, MLSD,
 * LIST), HASH with each algorithm, ABOR, rename and delete. The script checks each reply itself
 * ({@code src/test/resources/python/ftplib_session.py}); this side checks the files on disk.
 */
class PythonFtplibIT {
    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed();

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "plain-passive-ipv4, false, false, false",
        "plain-active-ipv4,  false, true,  false",
        "plain-passive-ipv6, false, false, true",
        "plain-active-ipv6,  false, true,  true",
        "tls-passive-ipv4,   true,  false, false",
        "tls-active-ipv4,    true,  true,  false",
        "tls-passive-ipv6,   true,  false, true",
    })
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void completesWholeSession(String name, boolean tls, boolean active, boolean ipv6) throws Exception {
        ExternalTool python = ExternalTool.require("python3", "python3", SERVER.transcript());
        Path dir = SERVER.tree().dir("ftplib-" + name);
        List<String> args = new ArrayList<>(List.of(script().toString(),
                ipv6 ? "::1" : "127.0.0.1",
                String.valueOf(ipv6 ? SERVER.ipv6Port() : SERVER.port()),
                FtpServerExtension.USER, FtpServerExtension.PASSWORD, dir.getFileName().toString()));
        if (tls) {
            args.add("--tls");
        }
        if (active) {
            args.add("--active");
        }

        ExternalTool.Result result = python.run(Duration.ofSeconds(100), args).assertSuccess();

        assertTrue(result.stdout().contains("SESSION OK"), result::describe);
        // What the server stored, seen from its disk: ASCII uploads arrive with LF line endings,
        // the renamed, deleted and removed entries are gone, nothing else is left.
        assertArrayEquals("line one\nline two\n".getBytes(StandardCharsets.US_ASCII),
                Files.readAllBytes(dir.resolve("text.txt")));
        try (var entries = Files.list(dir)) {
            assertEquals(List.of("data.bin", "text.txt"),
                    entries.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertEquals(300_000 + 4, Files.size(dir.resolve("data.bin")));
        if (ipv6) {
            String dialogue = result.stdout();
            assertTrue(dialogue.contains(active ? "'EPRT |2|::1|" : "'EPSV'"),
                    "ftplib uses the extended commands over IPv6:\n" + dialogue);
        }
    }

    static Path script() throws URISyntaxException {
        return Path.of(PythonFtplibIT.class.getResource("/python/ftplib_session.py").toURI());
    }
}
