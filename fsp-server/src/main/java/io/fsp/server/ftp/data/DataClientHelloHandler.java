package io.fsp.server.ftp.data;

import io.fsp.server.ftp.FtpSession;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslClientHelloHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the TLS context of a protected data connection from its ClientHello, then puts the real
 * {@link SslHandler} in its place. A client that tries to resume a session (curl and lftp resume the
 * control connection's) gets the control connection's context, where that session lives. Any other
 * client gets a context that sends no TLS 1.3 session tickets. Uploads use TLS 1.2, which sends nothing
 * after the handshake: a client that closes an upload connection with an unread ticket makes the kernel
 * reset it, and the reset discards the end of the upload. A ClientHello that comes before the transfer command
 * (curl starts its handshake as soon as the passive connection is made, and waits for it before it reads the
 * control connection again) is answered at once, as for an upload, since which command follows is not known yet
 * (TLS 1.3 for a client that offers nothing else). With
 * {@code require-tls-session-reuse}, a data connection that did not resume the control session is closed.
 */
final class DataClientHelloHandler extends SslClientHelloHandler<SslContext> {
    private static final Logger log = LoggerFactory.getLogger(DataClientHelloHandler.class);
    private static final int EXT_SESSION_TICKET = 35;
    private static final int EXT_PRE_SHARED_KEY = 41;
    private static final int EXT_SUPPORTED_VERSIONS = 43;
    private static final int TLS12 = 0x0303;

    private final FtpSession session;
    private final Promise<Void> installed;
    /** Whether the client sends the data (STOR, APPE, STOU); null until the transfer command is known. */
    private Boolean upload;
    /** Chosen from the ClientHello: the connection is limited to TLS 1.2. */
    private boolean tls12;

    /**
     * @param upload    whether the client sends the data (STOR, APPE, STOU); null when the connection is made
     *                  before the transfer command ({@link #transfer})
     * @param installed completed once the real TLS handler is in the pipeline
     */
    DataClientHelloHandler(FtpSession session, Boolean upload, Promise<Void> installed) {
        super(16 * 1024);
        this.session = session;
        this.upload = upload;
        this.installed = installed;
    }

    /** The transfer command came before the ClientHello: the TLS handler is chosen for it. On the channel's loop. */
    void transfer(boolean upload) {
        this.upload = upload;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        installed.tryFailure(new DataConnectionException("data connection closed before the TLS handshake"));
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        installed.tryFailure(new DataConnectionException("TLS handshake failed: " + cause.getMessage(), cause));
        ctx.close();
    }

    /**
     * TLS 1.2 only: for uploads, and when the control session is TLS 1.2 (so it can be resumed); for a transfer not
     * known yet, too, unless the client speaks only TLS 1.3 (an upload it makes then risks what TLS 1.2 avoids,
     * where it could not be protected at all otherwise).
     */
    private boolean tls12Only(ByteBuf clientHello) {
        if (session.tlsSession().map(s -> "TLSv1.2".equals(s.getProtocol())).orElse(false)) {
            return true;
        }
        if (upload == null) {
            return clientHello == null || offersTls12(clientHello);
        }
        return upload;
    }

    @Override
    protected Future<SslContext> lookup(ChannelHandlerContext ctx, ByteBuf clientHello) {
        tls12 = tls12Only(clientHello);
        boolean resuming = clientHello != null && attemptsResumption(clientHello, tls12);
        SslContext chosen = resuming ? session.server().sslContext() : session.server().dataSslContext();
        return ctx.executor().newSucceededFuture(chosen);
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, Future<SslContext> future) {
        SSLEngine engine = future.getNow().newEngine(ctx.alloc());
        if (tls12) {
            // TLS 1.3 servers send session tickets after the handshake, also after a resumption; uploading
            // clients (lftp, Java) never read them and close with them unread, and the reset that follows
            // discards the end of the upload. TLS 1.2 has nothing after the handshake.
            engine.setEnabledProtocols(new String[] {"TLSv1.2"});
        }
        SslHandler ssl = new SslHandler(engine);
        ctx.pipeline().replace(this, DataChannelInitializer.SSL, ssl);
        if (!session.server().config().tls().requireTlsSessionReuse()) {
            installed.trySuccess(null); // writes wait for the handshake inside the TLS handler
            return;
        }
        // Ready only once the handshake showed a resumed session: the transfer may begin after the handshake
        // (a connection made before its transfer command), and is then refused all the same.
        Optional<SSLSession> control = session.tlsSession();
        ssl.handshakeFuture().addListener(f -> {
            if (!f.isSuccess()) {
                installed.tryFailure(new DataConnectionException("TLS handshake failed: " + f.cause().getMessage(),
                        f.cause()));
            } else if (DataChannelInitializer.reuses(engine.getSession(), control)) {
                installed.trySuccess(null);
            } else {
                log.info("{} data connection did not resume the control TLS session; closing", session);
                installed.tryFailure(new DataConnectionException(
                        "the data connection must resume the control connection's TLS session"));
            }
        });
    }

    /**
     * Whether a ClientHello (RFC 8446 §4.1.2, from {@code legacy_version} on) offers a session this
     * connection can resume: a TLS 1.2 session ticket or session id, or, unless {@code tls12Only}, a TLS 1.3
     * pre-shared key. A TLS 1.3 client's session id is a compatibility placeholder unless the connection
     * is limited to TLS 1.2, where it names a TLS 1.2 session.
     */
    static boolean attemptsResumption(ByteBuf hello, boolean tls12Only) {
        if (extensions(hello) < 0) {
            return false; // cut short
        }
        int sessionIdLength = hello.getUnsignedByte(hello.readerIndex() + 2 + 32);
        if (!tls12Only && extension(hello, EXT_PRE_SHARED_KEY) >= 0) {
            return true;
        }
        int ticket = extension(hello, EXT_SESSION_TICKET);
        return ticket >= 0 && hello.getUnsignedShort(ticket - 2) > 0
                || sessionIdLength > 0 && (tls12Only || extension(hello, EXT_SUPPORTED_VERSIONS) < 0);
    }

    /** Whether a ClientHello offers TLS 1.2: in its supported_versions (RFC 8446 §4.2.1), or having none. */
    static boolean offersTls12(ByteBuf hello) {
        int at = extension(hello, EXT_SUPPORTED_VERSIONS);
        if (at < 0 || at >= hello.writerIndex()) {
            return true;
        }
        int end = Math.min(hello.writerIndex(), at + 1 + hello.getUnsignedByte(at));
        for (int i = at + 1; i + 2 <= end; i += 2) {
            if (hello.getUnsignedShort(i) == TLS12) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where the body of a ClientHello's extension {@code type} starts (its two length bytes before it), or -1
     * when the hello has none or ends before it.
     */
    private static int extension(ByteBuf hello, int type) {
        int i = extensions(hello);
        if (i < 0) {
            return -1;
        }
        int extensionsEnd = Math.min(hello.writerIndex(), i + 2 + hello.getUnsignedShort(i));
        for (i += 2; i + 4 <= extensionsEnd; i += 4 + hello.getUnsignedShort(i + 2)) {
            if (hello.getUnsignedShort(i) == type) {
                return i + 4;
            }
        }
        return -1;
    }

    /** Where a ClientHello's extensions (their two length bytes) start, or -1 when it ends before them. */
    private static int extensions(ByteBuf hello) {
        int i = hello.readerIndex() + 2 + 32;
        int end = hello.writerIndex();
        if (i + 1 > end) {
            return -1;
        }
        i += 1 + hello.getUnsignedByte(i); // session id
        if (i + 2 > end) {
            return -1;
        }
        i += 2 + hello.getUnsignedShort(i); // cipher suites
        if (i + 1 > end) {
            return -1;
        }
        i += 1 + hello.getUnsignedByte(i); // compression methods
        return i + 2 > end ? -1 : i;
    }
}
