package io.fsp.client.control;

import io.fsp.ftp.ReplyCode;
import io.fsp.net.HostPort;
import io.fsp.net.NetworkErrors;
import io.fsp.tls.SslContexts;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A blocking FTP control connection secured with AUTH TLS before anything secret is sent. One thread uses
 * it at a time. Replies are read with limits: a line longer than {@link #MAX_LINE} bytes or a reply longer
 * than {@link #MAX_REPLY_LINES} lines is an error, never an unbounded allocation.
 */
public final class ControlChannel implements Closeable {
    public static final int MAX_LINE = 64 * 1024;
    public static final int MAX_REPLY_LINES = 10_000;
    private static final Pattern EPSV = Pattern.compile("\\(\\|\\|\\|(\\d{1,5})\\|\\)");

    private final String host;
    /** Pipelined commands whose replies are not read yet, in order. */
    private final Queue<Expected> unanswered = new ArrayDeque<>();
    private SSLSocketFactory tls;
    private Socket socket;
    private InputStream in;
    /** What was read from {@code in} and not yet taken as lines: {@code buffer[position..limit)}. */
    private final byte[] buffer = new byte[16 * 1024];
    private int position;
    private int limit;
    /** The line being gathered, grown up to {@link #MAX_LINE}. */
    private byte[] line = new byte[256];
    private OutputStream out;

    private ControlChannel(String host) {
        this.host = host;
    }

    /**
     * Connects, reads the greeting and switches to TLS ({@code AUTH TLS}) checked by {@code trust}. AUTH TLS goes
     * out as soon as the connection is open, not a round trip later after the greeting (RFC 959 lets a client send
     * before a reply); nothing else is sent in clear. The TLS context is made meanwhile.
     */
    public static ControlChannel connect(String host, int port, X509TrustManager trust, Duration timeout) throws IOException {
        ControlChannel c = new ControlChannel(host);
        CompletableFuture<SSLSocketFactory> tls = CompletableFuture.supplyAsync(() -> context(trust));
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            plain.setSoTimeout((int) timeout.toMillis());
            plain.setTcpNoDelay(true);
            c.use(plain);
            c.send("AUTH TLS");
            c.expect(c.read(), ReplyCode.READY.value(), "greeting");
            c.expect(c.read(), ReplyCode.SECURITY_EXCHANGE_OK.value(), "AUTH TLS");
            c.tls = joined(tls);
            SSLSocket secure = (SSLSocket) c.tls.createSocket(plain, host, port, true);
            secure.setUseClientMode(true);
            secure.startHandshake();
            c.use(secure);
            return c;
        } catch (IOException e) {
            plain.close();
            throw named(new HostPort(host, port).toString(), e);
        } catch (RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    private static SSLSocketFactory joined(CompletableFuture<SSLSocketFactory> context) throws IOException {
        try {
            return context.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException u) {
                throw u.getCause();
            }
            throw e;
        }
    }

    /** A failure to connect, greet or secure, naming the server's address (a reply keeps its code). */
    private static IOException named(String address, IOException e) {
        return e instanceof ControlException c ? new ControlException(address + ": " + c.getMessage(), c.code(), c)
                : NetworkErrors.at(address, e);
    }

    /** FSP's TLS policy ({@link SslContexts#blockingClient}), checked by {@code trust} alone. */
    private static SSLSocketFactory context(X509TrustManager trust) {
        try {
            return SslContexts.blockingClient(trust);
        } catch (GeneralSecurityException e) {
            throw new UncheckedIOException(new IOException("TLS is not available: " + e.getMessage(), e));
        }
    }

    private void use(Socket s) throws IOException {
        socket = s;
        in = s.getInputStream();
        position = 0;
        limit = 0;
        out = new BufferedOutputStream(s.getOutputStream(), 4096);
    }

    /** How long a read may wait for the server; 0 waits for ever (while blocks are being placed). */
    public void readTimeout(Duration d) throws IOException {
        socket.setSoTimeout((int) d.toMillis());
    }

    /**
     * USER, PASS; then PBSZ 0 and PROT (P when {@code protectData}, else C) for data connections. Sent without
     * waiting for the replies ({@link #pipeline}): they are checked before any later reply is read.
     */
    public void login(String user, char[] password, boolean protectData) throws IOException {
        pipeline("USER " + user, ReplyCode.NEED_PASSWORD.value(), "login as " + user);
        pipeline("PASS " + new String(password), ReplyCode.LOGGED_IN.value(), "login as " + user);
        pipeline("PBSZ 0", ReplyCode.COMMAND_OK.value(), "PBSZ");
        pipeline(protectData ? "PROT P" : "PROT C", ReplyCode.COMMAND_OK.value(), "PROT");
    }

    /**
     * Sends {@code line} without waiting for its reply (RFC 959 §4.2 lets a client send the next command first; the
     * server answers in order): the reply must have {@code code}, which is checked, in order, before the reply to
     * any later command is read; a {@link ControlException} naming {@code what} otherwise. Only for commands whose
     * failure makes every later one pointless. Nothing is written before a read or {@link #send} flushes it.
     */
    public void pipeline(String line, int code, String what) throws IOException {
        write(line);
        unanswered.add(new Expected(code, what));
    }

    /** Sends a command and returns the first reply to it (preliminary or final). */
    public Reply command(String line) throws IOException {
        send(line);
        return read();
    }

    /** Sends a command (and any written before it); its reply is read with {@link #read}. */
    public void send(String line) throws IOException {
        write(line);
        out.flush();
    }

    /** Writes a command, without sending it yet: the next {@link #send} or {@link #read} does. */
    public void write(String line) throws IOException {
        if (line.indexOf('\r') >= 0 || line.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("command contains CR or LF (expected: one line)");
        }
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads the next reply not yet checked: first those of {@linkplain #pipeline pipelined} commands, each checked,
     * then the one returned.
     */
    public Reply read() throws IOException {
        out.flush();
        while (!unanswered.isEmpty()) {
            Expected e = unanswered.peek();
            Reply r = readReply();
            unanswered.remove();
            expect(r, e.code(), e.what());
        }
        return readReply();
    }

    /** Reads one complete reply (all lines of a multi-line reply). */
    private Reply readReply() throws IOException {
        String first = readLine();
        if (first.length() < 3 || !Character.isDigit(first.charAt(0)) || !Character.isDigit(first.charAt(1))
                || !Character.isDigit(first.charAt(2))) {
            throw new ControlException("reply: '" + abbreviate(first) + "' (expected: a three-digit code)");
        }
        int code = Integer.parseInt(first.substring(0, 3));
        List<String> lines = new ArrayList<>();
        lines.add(first.length() > 4 ? first.substring(4) : "");
        if (first.length() > 3 && first.charAt(3) == '-') {
            String end = first.substring(0, 3) + " ";
            while (true) {
                if (lines.size() >= MAX_REPLY_LINES) {
                    throw new ControlException("reply: more than " + MAX_REPLY_LINES + " lines (expected: fewer)");
                }
                String l = readLine();
                if (l.startsWith(end)) {
                    lines.add(l.substring(4));
                    break;
                }
                lines.add(l.startsWith(" ") ? l.substring(1) : l);
            }
        }
        return new Reply(code, lines);
    }

    /**
     * The next line, without its CR LF (or LF). Scans what was read in chunks: a tree's opening lines are a line per
     * file, tens of megabytes for a million files, which a read per byte made cost seconds of CPU.
     */
    private String readLine() throws IOException {
        int length = 0;
        while (true) {
            if (position == limit) {
                int n = in.read(buffer, 0, buffer.length);
                if (n < 0) {
                    throw new ControlException("control connection closed by the server");
                }
                position = 0;
                limit = n;
            }
            int start = position;
            while (position < limit && buffer[position] != '\n') {
                position++;
            }
            int taken = position - start;
            if (length + taken > MAX_LINE) {
                throw new ControlException("reply line: more than " + MAX_LINE + " bytes (expected: fewer)");
            }
            if (length + taken > line.length) {
                line = Arrays.copyOf(line, Math.min(MAX_LINE, Math.max(2 * line.length, length + taken)));
            }
            System.arraycopy(buffer, start, line, length, taken);
            length += taken;
            if (position < limit) {
                position++; // the LF
                int end = length > 0 && line[length - 1] == '\r' ? length - 1 : length;
                return new String(line, 0, end, StandardCharsets.UTF_8);
            }
        }
    }

    /** Throws a {@link ControlException} naming {@code what} unless {@code r} has {@code code}. */
    public static Reply expect(Reply r, int code, String what) throws ControlException {
        if (r.code() != code) {
            throw new ControlException(what + ": server answered " + r.code() + " " + abbreviate(r.text())
                    + " (expected: " + code + ")", r.code(), null);
        }
        return r;
    }

    /** EPSV (RFC 2428): the port of the server's passive data listener. */
    public int epsv() throws IOException {
        return epsvPort(command("EPSV"));
    }

    /** The port named by the reply to an EPSV. */
    public static int epsvPort(Reply reply) throws ControlException {
        Reply r = expect(reply, ReplyCode.ENTERING_EXTENDED_PASSIVE.value(), "EPSV");
        Matcher m = EPSV.matcher(r.text());
        if (!m.find()) {
            throw new ControlException("EPSV: reply '" + abbreviate(r.text()) + "' (expected: (|||PORT|))");
        }
        return Integer.parseInt(m.group(1));
    }

    /**
     * Opens a data connection to the port EPSV named. The socket has a channel ({@link Socket#getChannel()}), so
     * that blocks can be read straight into direct buffers. Its receive buffer is left to the kernel: a size set
     * here would turn off Linux's receive autotuning, which grows the buffer to the bandwidth-delay product (up to
     * {@code tcp_rmem}'s maximum), and cap the stream at about that size per round trip, the size itself capped by
     * {@code net.core.rmem_max} (208 KiB by default).
     */
    public Socket openData(int port, Duration timeout) throws IOException {
        Socket s = SocketChannel.open().socket();
        s.connect(new InetSocketAddress(socket.getInetAddress(), port), (int) timeout.toMillis());
        return s;
    }

    /** Wraps a data connection in TLS (PROT P), resuming this connection's TLS session where possible. */
    public Socket secureData(Socket data) throws IOException {
        SSLSocket s = (SSLSocket) tls.createSocket(data, host, socket.getPort(), true);
        s.setUseClientMode(true);
        s.startHandshake();
        return s;
    }

    /**
     * The certificate the server presented (its leaf), as the TLS session holds it: the pin checked it, an
     * evacuation's manifest records it to verify the server's signature.
     */
    public X509Certificate peerCertificate() throws IOException {
        if (!(socket instanceof SSLSocket secure)) {
            throw new IOException("not a TLS connection: no server certificate");
        }
        try {
            byte[] der = secure.getSession().getPeerCertificates()[0].getEncoded();
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (GeneralSecurityException e) {
            throw new IOException("the server's certificate: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            if (socket != null && !socket.isClosed()) {
                unanswered.clear(); // a failure ends the conversation: their replies no longer matter
                socket.setSoTimeout(2000);
                send("QUIT");
                read();
            }
        } catch (IOException | RuntimeException ignored) {
            // closing anyway
        } finally {
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // nothing left to do
            }
        }
    }

    private record Expected(int code, String what) {
    }

    static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
