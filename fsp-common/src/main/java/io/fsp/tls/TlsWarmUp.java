package io.fsp.tls;

import io.fsp.program.WarmUp;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One throw-away TLS session in memory, between the FTP server's own context and a client engine, before the first
 * client comes: a handshake, then records the size of a data connection's each way. The JDK's TLS is Java (only its
 * AES-GCM is native), and a fresh server would run the first FTPS clients' records interpreted while the JIT caught
 * up, so that they were slower than later ones. Nothing leaves the process.
 */
public final class TlsWarmUp {
    private static final Logger log = LoggerFactory.getLogger(TlsWarmUp.class);
    /** Records of 16 KiB: enough calls for the JIT to compile the record layer (48 MiB sealed and opened). */
    static final int RECORDS = 3000;

    private TlsWarmUp() {
    }

    /** {@link #run} as a {@link WarmUp}; returns at once. */
    public static void inBackground(SslContext server) {
        WarmUp.inBackground("TLS", () -> {
            try {
                run(server, RECORDS);
            } catch (SSLException e) {
                throw new IllegalStateException(e); // WarmUp logs it: only speed is lost
            }
        });
    }

    /** Handshakes with {@code server} in memory and sends {@code records} records from it; returns the bytes opened. */
    static long run(SslContext server, int records) throws SSLException {
        long start = System.nanoTime();
        SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
        SSLEngine c = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .trustManager(InsecureTrustManagerFactory.INSTANCE).build().newEngine(ByteBufAllocator.DEFAULT);
        int packet = Math.max(s.getSession().getPacketBufferSize(), c.getSession().getPacketBufferSize());
        int app = Math.max(s.getSession().getApplicationBufferSize(), c.getSession().getApplicationBufferSize());
        ByteBuffer toClient = ByteBuffer.allocateDirect(packet);
        ByteBuffer toServer = ByteBuffer.allocateDirect(packet);
        ByteBuffer inClient = ByteBuffer.allocateDirect(app);
        ByteBuffer inServer = ByteBuffer.allocateDirect(app);
        ByteBuffer empty = ByteBuffer.allocate(0);
        c.beginHandshake();
        s.beginHandshake();
        for (int steps = 0; handshaking(c) || handshaking(s); steps++) {
            if (steps > 100) {
                throw new SSLException("handshake did not end");
            }
            step(c, empty, toServer, s, inServer);
            step(s, empty, toClient, c, inClient);
        }
        ByteBuffer data = ByteBuffer.allocateDirect(16 * 1024);
        long sent = 0;
        long opened = 0;
        for (int i = 0; i < records; i++) {
            data.clear();
            toClient.clear();
            sent += check(s.wrap(data, toClient)).bytesConsumed(); // the first shares its packet with a handshake message
            toClient.flip();
            while (toClient.hasRemaining()) {
                inClient.clear();
                check(c.unwrap(toClient, inClient));
                opened += inClient.position();
            }
        }
        if (opened != sent) {
            throw new SSLException("warm-up: " + sent + " bytes sent, " + opened + " opened");
        }
        log.debug("TLS warm-up: handshake and {} bytes in {} ms", opened, (System.nanoTime() - start) / 1_000_000);
        return opened;
    }

    private static boolean handshaking(SSLEngine e) {
        SSLEngineResult.HandshakeStatus h = e.getHandshakeStatus();
        return h != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && h != SSLEngineResult.HandshakeStatus.FINISHED;
    }

    /** What {@code from} has to send (run its tasks first) goes through {@code wire} into {@code to}. */
    private static void step(SSLEngine from, ByteBuffer empty, ByteBuffer wire, SSLEngine to, ByteBuffer sink) throws SSLException {
        runTasks(from);
        wire.clear();
        from.wrap(empty, wire);
        wire.flip();
        while (wire.hasRemaining()) {
            sink.clear();
            SSLEngineResult r = to.unwrap(wire, sink);
            runTasks(to);
            if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesConsumed() == 0) {
                break;
            }
        }
    }

    private static void runTasks(SSLEngine e) {
        for (Runnable task; (task = e.getDelegatedTask()) != null; ) {
            task.run();
        }
    }

    private static SSLEngineResult check(SSLEngineResult r) throws SSLException {
        if (r.getStatus() != SSLEngineResult.Status.OK) {
            throw new SSLException("warm-up record: " + r);
        }
        return r;
    }
}
