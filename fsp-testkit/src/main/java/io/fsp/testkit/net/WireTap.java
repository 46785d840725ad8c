package io.fsp.testkit.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An attacker on the wire, for tests: a TCP proxy on 127.0.0.1 in front of {@code target} that records every stream
 * it carries and lets a test change bytes on their way ({@link Change}). Peers are pointed at {@link #address()}.
 */
public final class WireTap implements AutoCloseable {
    /** What the tap does to {@code n} bytes of a connection's stream, at {@code offset} in it, before passing them on. */
    @FunctionalInterface
    public interface Change {
        Change NONE = (c, toTarget, offset, bytes, n) -> { };

        void apply(Connection c, boolean toTarget, long offset, byte[] bytes, int n);
    }

    private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final InetSocketAddress target;
    private final Change change;
    private final List<Connection> connections = Collections.synchronizedList(new ArrayList<>());

    public WireTap(InetSocketAddress target, Change change) throws IOException {
        this.target = target;
        this.change = change;
        Thread accept = new Thread(this::accept, "wire-tap-accept");
        accept.setDaemon(true);
        accept.start();
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    private void accept() {
        try {
            while (true) {
                Socket peer = listener.accept();
                Socket far = new Socket(target.getAddress(), target.getPort());
                Connection c = new Connection(change);
                connections.add(c);
                c.pump(peer, far, true);
                c.pump(far, peer, false);
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** The connections so far, in the order they were accepted. */
    public List<Connection> connections() {
        synchronized (connections) {
            return List.copyOf(connections);
        }
    }

    /** How many streams (each direction of each connection counts) hold {@code needle}. */
    public int streamsContaining(byte[] needle) {
        int n = 0;
        for (Connection c : connections()) {
            n += (contains(c.toTarget(), needle) ? 1 : 0) + (contains(c.fromTarget(), needle) ? 1 : 0);
        }
        return n;
    }

    /** Waits until every connection so far has ended both ways. */
    public void awaitClosed() throws InterruptedException {
        for (Connection c : connections()) {
            c.done.await(5, TimeUnit.SECONDS);
        }
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }

    /** One proxied connection: what went each way, as it arrived (before any change). */
    public static final class Connection {
        private final ByteArrayOutputStream toTarget = new ByteArrayOutputStream();
        private final ByteArrayOutputStream fromTarget = new ByteArrayOutputStream();
        private final CountDownLatch done = new CountDownLatch(2);
        private final Change change;

        private Connection(Change change) {
            this.change = change;
        }

        public synchronized byte[] toTarget() {
            return toTarget.toByteArray();
        }

        public synchronized byte[] fromTarget() {
            return fromTarget.toByteArray();
        }

        /** Whether the connection began with a TLS handshake record (0x16), as far as it has come. */
        public boolean tls() {
            byte[] first = toTarget();
            return first.length > 0 && first[0] == 0x16;
        }

        private synchronized void record(boolean towardsTarget, byte[] buf, int n) {
            (towardsTarget ? toTarget : fromTarget).write(buf, 0, n);
        }

        private void pump(Socket from, Socket to, boolean towardsTarget) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[64 << 10];
                long offset = 0;
                try (from; to) {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    for (int n; (n = in.read(buf)) > 0; ) {
                        record(towardsTarget, buf, n);
                        change.apply(this, towardsTarget, offset, buf, n);
                        offset += n;
                        out.write(buf, 0, n);
                    }
                } catch (IOException e) {
                    // one side closed: the try closes both
                } finally {
                    done.countDown();
                }
            }, "wire-tap-pump");
            t.setDaemon(true);
            t.start();
        }
    }
}
