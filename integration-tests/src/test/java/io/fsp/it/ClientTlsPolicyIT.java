package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.it.harness.FspCommand;
import io.fsp.testkit.control.ScriptedServer;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code fsp} program's control channel speaks FSP's one TLS policy (TLS 1.3 and 1.2, AEAD suites only) with a
 * server whose certificate it pins: against a scripted server offering only TLS 1.2 CBC suites the handshake fails
 * before the login goes out, and {@code fsp get} ends with exit code 1 naming the server; the same server offering
 * AES-GCM gets the login.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientTlsPolicyIT {
    /** Password files only their owner may read: the client refuses others. */
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private static final KeyMaterial KEY = Certificates.selfSigned("scripted");

    @TempDir
    Path dir;

    @Test
    void aServerOfferingOnlyCbcSuitesGetsNoLogin() throws Exception {
        Outcome o = get("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA");
        assertTrue(o.server() instanceof SSLException, "the handshake failed at the server: " + o.server());
        assertEquals(ExitCodes.FAILURE, o.exit(), o.err());
        assertTrue(o.err().contains("fsp get: 127.0.0.1:" + o.port() + ": "), o.err());
    }

    @Test
    void theSameServerOfferingAesGcmGetsTheLogin() throws Exception {
        Outcome o = get("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
        assertEquals("USER alice", o.server(), "the login came after the handshake");
        assertEquals(ExitCodes.FAILURE, o.exit(), o.err());
        assertTrue(o.err().contains("530"), o.err());
    }

    private record Outcome(int port, Object server, int exit, String err) {
    }

    /** {@code fsp get} against a server that speaks TLS 1.2 with {@code suites} only; what each side ended with. */
    private Outcome get(String... suites) throws Exception {
        SSLContext tls = ScriptedServer.tls(KEY);
        Path password = Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "secret\n");
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = listener.getLocalPort();
            CompletableFuture<Object> server = CompletableFuture.supplyAsync(() -> serve(listener, tls, suites));
            Process p = FspCommand.process(List.of("get", "fsp://alice@127.0.0.1:" + port + "/x.bin", "-o",
                    dir.resolve("x.bin").toString(), "--config", "none", "--trust", KEY.fingerprint().toString(),
                    "--password-file", password.toString())).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "fsp get ended: " + err);
            return new Outcome(port, server.get(30, TimeUnit.SECONDS), p.exitValue(), err);
        }
    }

    /** Greets, takes AUTH TLS, handshakes with {@code suites}; returns the first line after it, or what failed. */
    private static Object serve(ServerSocket listener, SSLContext tls, String[] suites) {
        try (Socket plain = listener.accept()) {
            plain.setSoTimeout(30_000);
            OutputStream out = plain.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(plain.getInputStream(), StandardCharsets.UTF_8));
            say(out, "220 scripted");
            String auth = in.readLine();
            if (!"AUTH TLS".equals(auth)) {
                return "expected AUTH TLS, got " + auth;
            }
            say(out, "234 go on");
            SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1", plain.getPort(), true);
            secure.setUseClientMode(false);
            secure.setEnabledProtocols(new String[] {"TLSv1.2"});
            secure.setEnabledCipherSuites(suites);
            try {
                secure.startHandshake();
            } catch (SSLException e) {
                return e;
            }
            BufferedReader tin = new BufferedReader(new InputStreamReader(secure.getInputStream(), StandardCharsets.UTF_8));
            String first = tin.readLine();
            say(secure.getOutputStream(), "530 not here");
            return first;
        } catch (Exception e) {
            return e;
        }
    }

    private static void say(OutputStream out, String line) throws java.io.IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
