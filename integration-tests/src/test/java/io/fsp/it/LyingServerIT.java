package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.Collector;
import io.fsp.client.control.ControlException;
import io.fsp.client.verify.VerificationMode;
import io.fsp.it.harness.ScriptedTls;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that lies about the blocks of a file: the client must not call a file complete and verified unless the
 * announced blocks cover every byte of it exactly once. The server is a script here (a real TLS control channel,
 * nothing else): announcing too few blocks needs no block data at all.
 */
class LyingServerIT {
    @TempDir
    Path dir;

    private static final String FILE = "151 FILE 0 1048576 1700000000000 big.bin";

    @Test
    void aFileWithoutBlocksIsNotReportedComplete() throws Exception {
        // "blocks=0": by a count of sequence numbers, the transfer was complete before it began
        Throwable e = lie(List.of(FILE));
        assertTrue(e.getMessage().contains("announced blocks for 0 of the 1048576 bytes of big.bin"), e.getMessage());
    }

    @Test
    void overlappingBlocksAreRefused() throws Exception {
        Throwable e = lie(List.of(FILE,
                "151 BLK 0 origin 0 0 524288 sha256:" + "00".repeat(32),
                "151 BLK 1 origin 0 262144 524288 sha256:" + "00".repeat(32)));
        assertTrue(e.getMessage().contains("overlap another block"), e.getMessage());
    }

    /** A block that carries small files may run on into the next files, never past the last one. */
    @Test
    void aBlockRunningPastTheLastFileIsRefused() throws Exception {
        Throwable e = lie(List.of(FILE, "151 BLK 0 origin 0 0 1048577 sha256:" + "00".repeat(32)));
        assertTrue(e.getMessage().contains("BLK 0: file 0 @0+1048577 (expected: inside the announced files: bytes"
                + " 0+1048577 from file 0: run past the last file by 1 bytes"), e.getMessage());
    }

    /** Runs a get against a server that says {@code lines} after FRET, then 226; what the get threw. */
    private Throwable lie(List<String> lines) throws Exception {
        KeyMaterial key = Certificates.selfSigned("liar");
        SSLContext tls = ScriptedTls.server(key);
        long blocks = lines.stream().filter(l -> l.startsWith("151 BLK")).count();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> serve(listener, tls, blocks, lines));
            Path dest = dir.resolve("big.bin");
            CollectOptions options = new CollectOptions("127.0.0.1", listener.getLocalPort(), "alice", "secret".toCharArray(),
                    "alice@127.0.0.1:" + listener.getLocalPort(), "/big.bin", dest, PinnedTrustManager.of(Set.of(key.fingerprint())),
                    List.of(), false, 1, VerificationMode.FIVER, Duration.ofSeconds(5), Duration.ofSeconds(5));
            ControlException e = assertThrows(ControlException.class, () -> new Collector(options).run());
            server.get();
            return e;
        }
    }

    private static void serve(ServerSocket listener, SSLContext tls, long blocks, List<String> lines) {
        try (Socket plain = listener.accept()) {
            plain.setSoTimeout(10_000);
            OutputStream out = plain.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(plain.getInputStream(), StandardCharsets.UTF_8));
            say(out, "220 liar");
            expect(in, "AUTH TLS");
            say(out, "234 go on");
            SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1", plain.getPort(), true);
            secure.setUseClientMode(false);
            secure.startHandshake();
            OutputStream tout = secure.getOutputStream();
            BufferedReader tin = new BufferedReader(new InputStreamReader(secure.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = tin.readLine()) != null; ) {
                String verb = line.split(" ")[0];
                switch (verb) {
                    case "USER" -> say(tout, "331 password");
                    case "PASS" -> say(tout, "230 in");
                    case "PBSZ", "PROT", "FSPO" -> say(tout, "200 ok");
                    case "FRET" -> {
                        say(tout, "150 FSP transfer 0000000000000001");
                        say(tout, "151 FSP 0000000000000001 kind=file files=1 directories=0 bytes=1048576 blocks=" + blocks
                                + " block-size=524288 compression=off cipher=none checksum=crc32c digest=sha256");
                        say(tout, "151 KEY none");
                        for (String l : lines) {
                            say(tout, l);
                        }
                        say(tout, "226 every block placed");
                    }
                    case "QUIT" -> {
                        say(tout, "221 bye");
                        return;
                    }
                    default -> say(tout, "502 not here");
                }
            }
        } catch (Exception e) {
            // the client hung up: the test reads what the client said
        }
    }

    private static void say(OutputStream out, String line) throws java.io.IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void expect(BufferedReader in, String command) throws java.io.IOException {
        String line = in.readLine();
        if (line == null || !line.startsWith(command)) {
            throw new java.io.IOException("expected " + command + ", got " + line);
        }
    }
}
