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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The real curl: downloads and uploads in each data-connection mode (EPSV, PASV, EPRT, PORT) on
 * IPv4 and IPv6, over plain FTP and explicit TLS ({@code --ssl-reqd}), resumed downloads and
 * uploads, ASCII, listings, quoted commands (RNFR/RNTO, DELE, MKD, RMD) and {@code -I} (SIZE, MDTM).
 * Each case asserts the commands curl sent (from {@code -v}) and the bytes that arrived.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CurlIT {
    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed();

    @TempDir
    Path local;

    private ExternalTool.Result curl(String... args) throws Exception {
        ExternalTool curl = ExternalTool.require("curl", "curl", SERVER.transcript());
        List<String> all = new ArrayList<>(List.of("-v", "-sS", "--max-time", "45",
                "--user", FtpServerExtension.USER + ":" + FtpServerExtension.PASSWORD));
        all.addAll(Arrays.asList(args));
        return curl.run(Duration.ofSeconds(50), all);
    }

    private static void assertSent(ExternalTool.Result result, String command) {
        assertTrue(result.stderr().lines().anyMatch(l -> l.startsWith("> " + command)),
                () -> "curl sent " + command + ":\n" + result.stderr());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "epsv-ipv4 | EPSV  | false | ",
        "pasv-ipv4 | PASV  | false | --disable-epsv",
        "eprt-ipv4 | EPRT  | false | -P 127.0.0.1",
        "port-ipv4 | PORT  | false | -P 127.0.0.1 --disable-eprt",
        "epsv-ipv6 | EPSV  | true  | ",
        "eprt-ipv6 | EPRT  | true  | -P ::1",
    })
    void downloadsAndUploadsInEachDataMode(String name, String dataCommand, boolean ipv6, String options)
            throws Exception {
        Path dir = SERVER.tree().dir("curl-" + name);
        byte[] data = TestTree.randomBytes(3_000_017, name.hashCode());
        TestTree.write(dir.resolve("source.bin"), data);
        String base = (ipv6 ? SERVER.urlIpv6("") : SERVER.url("")) + dir.getFileName() + "/";
        List<String> extra = options == null ? List.of() : List.of(options.trim().split("\\s+"));

        List<String> get = new ArrayList<>(extra);
        get.addAll(List.of("-g", "-o", local.resolve("got.bin").toString(), base + "source.bin"));
        ExternalTool.Result download = curl(get.toArray(String[]::new)).assertSuccess();
        assertArrayEquals(data, Files.readAllBytes(local.resolve("got.bin")));
        assertSent(download, dataCommand);
        assertSent(download, "RETR source.bin");

        List<String> put = new ArrayList<>(extra);
        put.addAll(List.of("-g", "-T", local.resolve("got.bin").toString(), base + "uploaded.bin"));
        ExternalTool.Result upload = curl(put.toArray(String[]::new)).assertSuccess();
        assertSent(upload, "STOR uploaded.bin");
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("uploaded.bin")));
    }

    // Passive only: curl 7.88 fails every active-mode TLS transfer by itself ("sa_addr inet_ntop()
    // failed with errno 97", against vsftpd too). Active TLS is covered by Commons Net, ftplib, lftp.
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "tls-epsv-ipv4 | EPSV | false | ",
        "tls-pasv-ipv4 | PASV | false | --disable-epsv",
        "tls-epsv-ipv6 | EPSV | true  | ",
    })
    void explicitTlsWithSslReqd(String name, String dataCommand, boolean ipv6, String options) throws Exception {
        Path dir = SERVER.tree().dir("curl-" + name);
        byte[] data = TestTree.randomBytes(2_000_003, name.hashCode());
        TestTree.write(dir.resolve("source.bin"), data);
        String base = (ipv6 ? SERVER.urlIpv6("") : SERVER.url("")) + dir.getFileName() + "/";
        List<String> extra = new ArrayList<>(List.of("--ssl-reqd", "-k", "-g"));
        if (options != null) {
            extra.addAll(List.of(options.trim().split("\\s+")));
        }

        List<String> get = new ArrayList<>(extra);
        get.addAll(List.of("-o", local.resolve("got.bin").toString(), base + "source.bin"));
        ExternalTool.Result download = curl(get.toArray(String[]::new)).assertSuccess();
        assertArrayEquals(data, Files.readAllBytes(local.resolve("got.bin")));
        assertSent(download, "AUTH ");
        assertSent(download, "PBSZ 0");
        assertSent(download, "PROT P");
        assertSent(download, dataCommand);

        List<String> put = new ArrayList<>(extra);
        put.addAll(List.of("-T", local.resolve("got.bin").toString(), base + "uploaded.bin"));
        curl(put.toArray(String[]::new)).assertSuccess();
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("uploaded.bin")));
    }

    @Test
    void authSslIsAcceptedAsCurlTriesItFirst() throws Exception {
        Path dir = SERVER.tree().dir("curl-auth-ssl");
        TestTree.write(dir.resolve("a.txt"), "hello".getBytes(StandardCharsets.US_ASCII));
        // --ftp-ssl-ccc is not used: the control channel stays encrypted. curl sends AUTH SSL first.
        ExternalTool.Result result = curl("-k", "--ftp-ssl-control",
                SERVER.url("curl-auth-ssl/a.txt")).assertSuccess();
        assertEquals("hello", result.stdout());
        assertSent(result, "AUTH SSL");
        assertFalse(result.stderr().contains("> AUTH TLS"), "AUTH SSL was accepted, no fallback to AUTH TLS");
        assertSent(result, "PROT C");
    }

    @Test
    void resumesDownloadWithRestAndUploadWithAppe() throws Exception {
        Path dir = SERVER.tree().dir("curl-resume");
        byte[] data = TestTree.randomBytes(5_000_000, 77);
        TestTree.write(dir.resolve("big.bin"), data);
        Path partial = local.resolve("big.bin");
        Files.write(partial, Arrays.copyOf(data, 1_234_567));

        ExternalTool.Result download = curl("-C", "-", "-o", partial.toString(), SERVER.url("curl-resume/big.bin"))
                .assertSuccess();
        assertSent(download, "REST 1234567");
        assertArrayEquals(data, Files.readAllBytes(partial));

        TestTree.write(dir.resolve("up.bin"), Arrays.copyOf(data, 2_000_000));
        ExternalTool.Result upload = curl("-C", "-", "-T", partial.toString(), SERVER.url("curl-resume/up.bin"))
                .assertSuccess();
        assertSent(upload, "SIZE up.bin");
        assertSent(upload, "APPE up.bin");
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("up.bin")));

        Files.writeString(local.resolve("tail.txt"), "tail");
        curl("--append", "-T", local.resolve("tail.txt").toString(), SERVER.url("curl-resume/up.bin")).assertSuccess();
        assertEquals(data.length + 4L, Files.size(dir.resolve("up.bin")));
    }

    @Test
    void asciiModeConvertsLineEndings() throws Exception {
        Path dir = SERVER.tree().dir("curl-ascii");
        TestTree.write(dir.resolve("unix.txt"), "one\ntwo\nthree\n".getBytes(StandardCharsets.US_ASCII));
        ExternalTool.Result download = curl("-B", "--trace-ascii", local.resolve("trace.txt").toString(),
                SERVER.url("curl-ascii/unix.txt")).assertSuccess();
        // curl turns CRLF back into LF for its output; the trace shows what came over the wire.
        String trace = Files.readString(local.resolve("trace.txt"));
        assertTrue(trace.contains("TYPE A"), trace);
        assertEquals("one\ntwo\nthree\n", download.stdout());
        assertEquals(14 + 3, receivedBytes(trace), "three CRLF line ends on the wire");

        Files.writeString(local.resolve("up.txt"), "x\ny\n");
        ExternalTool.Result upload = curl("-B", "-T", local.resolve("up.txt").toString(),
                SERVER.url("curl-ascii/up.txt")).assertSuccess();
        assertSent(upload, "TYPE A");
        assertEquals("x\ny\n", Files.readString(dir.resolve("up.txt")), "CRLF from the wire stored as LF");
    }

    private static long receivedBytes(String trace) {
        Matcher m = Pattern.compile("<= Recv data, (\\d+) bytes").matcher(trace);
        long total = 0;
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    @Test
    void listsRenamesDeletesAndMakesDirectories() throws Exception {
        Path dir = SERVER.tree().dir("curl-manage");
        TestTree.write(dir.resolve("a.bin"), new byte[1234]);
        TestTree.write(dir.resolve("b.txt"), "b".getBytes(StandardCharsets.US_ASCII));
        Files.createDirectory(dir.resolve("sub"));

        ExternalTool.Result list = curl(SERVER.url("curl-manage/")).assertSuccess();
        assertSent(list, "LIST");
        assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith("d") && l.endsWith(" sub")), list.stdout());
        assertTrue(list.stdout().lines().anyMatch(l -> l.startsWith("-") && l.contains(" 1234 ") && l.endsWith(" a.bin")),
                list.stdout());

        ExternalTool.Result names = curl("-l", SERVER.url("curl-manage/")).assertSuccess();
        assertSent(names, "NLST");
        assertEquals(List.of("a.bin", "b.txt", "sub"), names.stdout().lines().sorted().toList());

        ExternalTool.Result head = curl("-I", SERVER.url("curl-manage/a.bin")).assertSuccess();
        assertSent(head, "MDTM a.bin");
        assertSent(head, "SIZE a.bin");
        assertTrue(head.stdout().contains("Content-Length: 1234"), head.stdout());
        assertTrue(head.stdout().contains("Last-Modified: "), head.stdout());

        // Quoted commands run right after login, in the login directory "/".
        curl("-Q", "RNFR curl-manage/a.bin", "-Q", "RNTO curl-manage/c.bin", "-Q", "MKD curl-manage/made",
                "-Q", "DELE curl-manage/b.txt", "-Q", "RMD curl-manage/sub",
                SERVER.url("curl-manage/"), "-o", "/dev/null").assertSuccess();
        try (var entries = Files.list(dir)) {
            assertEquals(List.of("c.bin", "made"), entries.map(p -> p.getFileName().toString()).sorted().toList());
        }

        ExternalTool.Result created = curl("--ftp-create-dirs", "-T", "/dev/null",
                SERVER.url("curl-manage/x/y/empty.bin")).assertSuccess();
        assertSent(created, "MKD x");
        assertTrue(Files.isRegularFile(dir.resolve("x/y/empty.bin")));

        ExternalTool.Result refused = curl("-Q", "DELE no-such-file", SERVER.url("curl-manage/"));
        assertEquals(21, refused.exitCode(), "curl: quote command returned error: " + refused.describe());
        assertTrue(refused.stderr().contains("< 550"), refused::describe);
    }
}
