package io.fsp.it.harness;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A raw FTP control connection over a plain socket, for dialogues no well-behaved client would
 * have: it sends exactly the bytes given and parses replies strictly (RFC 959 §4.2).
 */
public final class ControlConnection implements AutoCloseable {
    private static final int MAX_REPLY_LINE = 64 * 1024;
    private static final Pattern PASV = Pattern.compile("(\\d+),(\\d+),(\\d+),(\\d+),(\\d+),(\\d+)");
    private static final Pattern EPSV = Pattern.compile("\\(\\|\\|\\|(\\d+)\\|\\)");

    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private final Transcript transcript;

    private ControlConnection(Socket socket, Transcript transcript) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.transcript = transcript;
    }

    /** Connects and reads the greeting, which must be 220. */
    public static ControlConnection open(InetSocketAddress server, Transcript transcript) throws IOException {
        ControlConnection c = connect(server, null, transcript);
        c.expect(220);
        return c;
    }

    /** Connects (from {@code localAddress} if not null) without reading anything. */
    public static ControlConnection connect(InetSocketAddress server, InetAddress localAddress, Transcript transcript)
            throws IOException {
        Socket socket = new Socket();
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        socket.connect(server, 10_000);
        socket.setSoTimeout(15_000);
        transcript.add("connected to " + server + " from " + socket.getLocalSocketAddress());
        return new ControlConnection(socket, transcript);
    }

    /** Opens a connection and logs in with USER and PASS (needs a server that allows plain login). */
    public static ControlConnection login(InetSocketAddress server, String user, String password, Transcript transcript)
            throws IOException {
        ControlConnection c = open(server, transcript);
        c.send("USER " + user).assertCode(331);
        c.send("PASS " + password).assertCode(230);
        return c;
    }

    public Socket socket() {
        return socket;
    }

    /**
     * Sends AUTH TLS, expects 234 and continues over TLS (any certificate accepted: the tests
     * compare the fingerprint the server printed instead). Returns the server's certificate.
     */
    public X509Certificate startTls() throws IOException {
        send("AUTH TLS").assertCode(234);
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new AcceptAnyCertificate()}, null);
            SSLSocket tls = (SSLSocket) context.getSocketFactory()
                    .createSocket(socket, socket.getInetAddress().getHostAddress(), socket.getPort(), true);
            tls.startHandshake();
            socket = tls;
            in = tls.getInputStream();
            out = tls.getOutputStream();
            transcript.add("TLS " + tls.getSession().getProtocol() + " " + tls.getSession().getCipherSuite());
            return (X509Certificate) tls.getSession().getPeerCertificates()[0];
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS setup failed", e);
        }
    }

    /** Trusts any server certificate; tests pin the printed fingerprint instead. */
    public static final class AcceptAnyCertificate implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType)
                throws CertificateException {
            throw new CertificateException("no client certificates here");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // accepted: see the class comment
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    /** Sends {@code line} plus CRLF and reads one reply. */
    public Reply send(String line) throws IOException {
        sendLine(line);
        return readReply();
    }

    /** Sends {@code line} plus CRLF without reading the reply. */
    public void sendLine(String line) throws IOException {
        transcript.add("> " + (line.startsWith("PASS ") ? "PASS ****" : line));
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Sends raw bytes exactly as given. */
    public void sendRaw(byte[] bytes) throws IOException {
        transcript.add("> [" + bytes.length + " raw bytes]");
        out.write(bytes);
        out.flush();
    }

    public Reply expect(int code) throws IOException {
        return readReply().assertCode(code);
    }

    /** Reads one reply, single- or multi-line. */
    public Reply readReply() throws IOException {
        List<String> lines = new ArrayList<>();
        String first = readLine();
        lines.add(first);
        if (first.length() < 4 || !Character.isDigit(first.charAt(0)) || !Character.isDigit(first.charAt(1))
                || !Character.isDigit(first.charAt(2)) || (first.charAt(3) != ' ' && first.charAt(3) != '-')) {
            throw new IOException("malformed reply line: \"" + first + "\"");
        }
        int code = Integer.parseInt(first.substring(0, 3));
        if (first.charAt(3) == '-') {
            String end = first.substring(0, 3) + " ";
            String line;
            do {
                line = readLine();
                lines.add(line);
            } while (!line.startsWith(end));
        }
        Reply reply = new Reply(code, List.copyOf(lines));
        transcript.add("< " + String.join("\n< ", lines));
        return reply;
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("connection closed by server after \"" + line.toString(StandardCharsets.UTF_8) + "\"");
            }
            if (line.size() >= MAX_REPLY_LINE) {
                throw new IOException("reply line longer than " + MAX_REPLY_LINE + " bytes");
            }
            line.write(b);
        }
        String text = line.toString(StandardCharsets.UTF_8);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    /**
     * True when the server closed the connection: reads (discarding any final replies) until end
     * of stream or reset, or returns false if the server keeps it open for {@code timeoutMillis}.
     */
    public boolean closedByServer(int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        try {
            byte[] buffer = new byte[8192];
            long deadline = System.currentTimeMillis() + timeoutMillis;
            while (System.currentTimeMillis() < deadline) {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset
        } finally {
            socket.setSoTimeout(15_000);
        }
    }

    /** PASV, parsed to the address the server announced. */
    public InetSocketAddress passive() throws IOException {
        Reply reply = send("PASV").assertCode(227);
        Matcher m = PASV.matcher(reply.text());
        if (!m.find()) {
            throw new IOException("227 reply without h1,h2,h3,h4,p1,p2: " + reply);
        }
        String host = m.group(1) + "." + m.group(2) + "." + m.group(3) + "." + m.group(4);
        int port = Integer.parseInt(m.group(5)) * 256 + Integer.parseInt(m.group(6));
        return new InetSocketAddress(host, port);
    }

    /** EPSV, parsed to the port (the host is the control connection's peer, RFC 2428 §3). */
    public InetSocketAddress extendedPassive() throws IOException {
        Reply reply = send("EPSV").assertCode(229);
        Matcher m = EPSV.matcher(reply.text());
        if (!m.find()) {
            throw new IOException("229 reply without (|||port|): " + reply);
        }
        return new InetSocketAddress(socket.getInetAddress(), Integer.parseInt(m.group(1)));
    }

    /** Opens a data connection to {@code address}. */
    public static Socket openData(InetSocketAddress address) throws IOException {
        Socket data = new Socket();
        data.connect(address, 10_000);
        data.setSoTimeout(15_000);
        return data;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing after the test: nothing left to report
        }
    }
}
