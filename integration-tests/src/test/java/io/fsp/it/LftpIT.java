package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The real lftp with {@code ftp:ssl-force} (or plain), passive and active, IPv4 and IPv6: put,
 * get, {@code get -c} (REST + RETR), {@code put -c} (REST + STOR), mkdir, mv, rm, rmdir, listings
 * parsed by lftp ({@code cls}, {@code mirror} both ways over MLSD or LIST) and ASCII.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LftpIT {
    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed();

    @TempDir
    Path local;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "tls-passive-ipv4,   true,  true,  false",
        "tls-active-ipv4,    true,  false, false",
        "tls-passive-ipv6,   true,  true,  true",
        "plain-passive-ipv4, false, true,  false",
        "plain-active-ipv6,  false, false, true",
    })
    void completesSessionWithMirrorAndResume(String name, boolean tls, boolean passive, boolean ipv6)
            throws Exception {
        ExternalTool lftp = ExternalTool.require("lftp", "lftp", SERVER.transcript());
        Path dir = SERVER.tree().dir("lftp-" + name);
        byte[] data = TestTree.randomBytes(3_000_000, name.hashCode());
        Path source = TestTree.write(local.resolve("data.bin"), data);
        TestTree.write(local.resolve("partial.bin"), Arrays.copyOf(data, 1_000_000));
        TestTree.write(dir.resolve("remote-partial.bin"), Arrays.copyOf(data, 1_500_000));
        TestTree.write(local.resolve("tree/a/x.txt"), "x\n".getBytes(StandardCharsets.US_ASCII));
        TestTree.write(local.resolve("tree/a/b/y.bin"), TestTree.randomBytes(70_000, 5));
        TestTree.write(local.resolve("tree/z.bin"), new byte[0]);
        TestTree.write(dir.resolve("unix.txt"), "one\ntwo\n".getBytes(StandardCharsets.US_ASCII));
        Path log = local.resolve("lftp.log");
        String url = ipv6 ? "ftp://[::1]:" + SERVER.ipv6Port() : "ftp://127.0.0.1:" + SERVER.port();

        String script = String.join("\n",
                "set cmd:fail-exit yes",
                "set xfer:clobber on",
                "set net:max-retries 2",
                "set net:reconnect-interval-base 1",
                "set net:timeout 20",
                "set ssl:verify-certificate no",
                "set ftp:ssl-force " + tls,
                "set ftp:ssl-protect-data " + tls,
                "set ftp:ssl-allow " + tls,
                "set ftp:passive-mode " + (passive ? "on" : "off"),
                "debug -o " + log + " 5",
                "open -u " + FtpServerExtension.USER + "," + FtpServerExtension.PASSWORD + " " + url,
                "cd /" + dir.getFileName(),
                "put " + source + " -o data.bin",
                "get data.bin -o " + local.resolve("got.bin"),
                "get -c data.bin -o " + local.resolve("partial.bin"),
                "put -c " + source + " -o remote-partial.bin",
                "mkdir sub",
                "mv data.bin sub/moved.bin",
                "cls -l sub/",
                "mirror -R " + local.resolve("tree") + " tree",
                "mirror tree " + local.resolve("back"),
                "get -a unix.txt -o " + local.resolve("unix.txt"),
                "rm sub/moved.bin",
                "rmdir sub",
                "quote NOOP",
                "bye",
                "");
        Path scriptFile = Files.writeString(local.resolve("session.lftp"), script);

        ExternalTool.Result result = lftp.run(Duration.ofSeconds(80), "-f", scriptFile.toString());
        String dialogue = Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "(no log)";
        SERVER.transcript().add("lftp debug log:\n" + dialogue);
        result.assertSuccess();

        assertArrayEquals(data, Files.readAllBytes(local.resolve("got.bin")));
        assertArrayEquals(data, Files.readAllBytes(local.resolve("partial.bin")), "get -c resumed the download");
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("remote-partial.bin")), "put -c resumed the upload");
        assertTrue(result.stdout().contains("3000000") && result.stdout().contains("moved.bin"),
                "cls -l shows the moved file and its size:\n" + result.stdout());
        assertSameTree(local.resolve("tree"), dir.resolve("tree"));
        assertSameTree(local.resolve("tree"), local.resolve("back"));
        assertEquals("one\ntwo\n", Files.readString(local.resolve("unix.txt")));
        assertFalse(Files.exists(dir.resolve("sub")));
        assertFalse(Files.exists(dir.resolve("data.bin")));

        assertTrue(dialogue.contains("---> REST 1000000"), "REST before RETR");
        assertTrue(dialogue.contains("---> REST 1500000"), "REST before STOR");
        if (tls) {
            assertTrue(dialogue.contains("---> AUTH TLS") && dialogue.contains("---> PROT P"), "TLS dialogue");
        }
        String dataCommand = ipv6 ? (passive ? "EPSV" : "EPRT") : (passive ? "PASV" : "PORT");
        assertTrue(dialogue.contains("---> " + dataCommand), () -> "lftp used " + dataCommand);
        // ... and the server accepted it (lftp silently falls back to passive mode otherwise)
        List<String> lines = dialogue.lines().toList();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).contains("---> " + dataCommand)) {
                String reply = lines.get(i + 1);
                assertTrue(reply.contains("<--- 2"), () -> "reply to lftp's " + dataCommand + ": " + reply);
            }
        }
        // lftp reports protocol trouble it recovers from (and waits after) with "****" lines
        assertEquals(List.of(), lines.stream().filter(l -> l.contains("**** ")).toList(), "lftp saw no errors");
    }

    private static void assertSameTree(Path expected, Path actual) throws Exception {
        assertEquals(relativeFiles(expected), relativeFiles(actual), "same entries");
        for (String file : relativeFiles(expected)) {
            Path e = expected.resolve(file);
            if (Files.isRegularFile(e)) {
                assertArrayEquals(Files.readAllBytes(e), Files.readAllBytes(actual.resolve(file)), file);
            }
        }
    }

    private static List<String> relativeFiles(Path root) throws Exception {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.map(p -> root.relativize(p).toString()).sorted().toList();
        }
    }
}
