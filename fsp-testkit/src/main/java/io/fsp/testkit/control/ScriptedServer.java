package io.fsp.testkit.control;

import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A server that plays a script on a real loopback TLS control connection: the greeting, AUTH TLS, then for each
 * command the lines the script gives (none: it stays silent). {@link #DATA} in the lines accepts the data connection
 * EPSV named ({@code 229 (|||port|)} is {@link #epsv()}) and closes it. What the client sent is kept, in order.
 * The client connects to {@link #port()} and pins {@link #fingerprint()}.
 */
public final class ScriptedServer implements AutoCloseable {
    /** In a script's lines: accept the data connection and close it. */
    public static final String DATA = "<data>";
    private static final KeyMaterial KEY = Certificates.selfSigned("scripted");

    private final ServerSocket control;
    private final ServerSocket data;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> done;
    private volatile Socket accepted;

    private ScriptedServer(Function<String, List<String>> script) throws Exception {
        control = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        data = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        SSLContext tls = tls(KEY);
        done = CompletableFuture.runAsync(() -> serve(tls, script));
    }

    /** A server answering each command with what {@code script} gives for it. */
    public static ScriptedServer start(Function<String, List<String>> script) throws Exception {
        return new ScriptedServer(script);
    }

    /** The control port on 127.0.0.1. */
    public int port() {
        return control.getLocalPort();
    }

    /** The fingerprint of the certificate this server presents. */
    public Fingerprint fingerprint() {
        return KEY.fingerprint();
    }

    /** The reply to EPSV naming this server's data port. */
    public String epsv() {
        return "229 Entering Extended Passive Mode (|||" + data.getLocalPort() + "|)";
    }

    /** The commands received so far, as sent. */
    public List<String> received() {
        return List.copyOf(received);
    }

    private void serve(SSLContext tls, Function<String, List<String>> script) {
        try (Socket plain = control.accept()) {
            accepted = plain;
            OutputStream out = plain.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(plain.getInputStream(), StandardCharsets.UTF_8));
            say(out, "220 scripted");
            if (!"AUTH TLS".equals(in.readLine())) {
                return;
            }
            say(out, "234 go ahead");
            SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1", plain.getPort(), true);
            secure.setUseClientMode(false);
            secure.startHandshake();
            OutputStream tout = secure.getOutputStream();
            BufferedReader tin = new BufferedReader(new InputStreamReader(secure.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = tin.readLine()) != null; ) {
                received.add(line);
                if (line.equals("QUIT")) {
                    say(tout, "221 bye");
                    return;
                }
                for (String reply : script.apply(line)) {
                    if (reply.equals(DATA)) {
                        data.accept().close();
                    } else {
                        say(tout, reply);
                    }
                }
            }
        } catch (IOException e) {
            // the client hung up: the test looks at what it got
        }
    }

    private static void say(OutputStream out, String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** A JDK TLS context presenting {@code key}, for a test that plays a server line by line. */
    public static SSLContext tls(KeyMaterial key) throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("key", key.privateKey(), new char[0], key.chain().toArray(X509Certificate[]::new));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        return tls;
    }

    @Override
    public void close() throws IOException {
        control.close();
        data.close();
        Socket s = accepted;
        if (s != null) {
            s.close();
        }
        done.cancel(true);
    }
}
