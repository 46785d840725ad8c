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
 * reset it, and the reset discards the end of the upload. With {@code require-tls-session-reuse}, a data
 * connection that did not resume the control session is closed.
 */
final class DataClientHelloHandler extends SslClientHelloHandler<SslContext> {
    private static final Logger log = LoggerFactory.getLogger(DataClientHelloHandler.class);
    private static final int EXT_SESSION_TICKET = 35;
    private static final int EXT_PRE_SHARED_KEY = 41;
    private static final int EXT_SUPPORTED_VERSIONS = 43;

    private final FtpSession session;
    private final boolean upload;
    private final Promise<Void> installed;

    /**
     * @param upload    whether the client sends the data (STOR, APPE, STOU)
     * @param installed completed once the real TLS handler is in the pipeline
     */
    DataClientHelloHandler(FtpSession session, boolean upload, Promise<Void> installed) {
        super(16 * 1024);
        this.session = session;
        this.upload = upload;
        this.installed = installed;
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

    /** TLS 1.2 only: for uploads, and when the control session is TLS 1.2 (so it can be resumed). */
    private boolean tls12Only() {
        return upload || session.tlsSession().map(s -> "TLSv1.2".equals(s.getProtocol())).orElse(false);
    }

    @Override
    protected Future<SslContext> lookup(ChannelHandlerContext ctx, ByteBuf clientHello) {
        boolean resuming = clientHello != null && attemptsResumption(clientHello, tls12Only());
        SslContext chosen = resuming ? session.server().sslContext() : session.server().dataSslContext();
        return ctx.executor().newSucceededFuture(chosen);
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, Future<SslContext> future) {
        SSLEngine engine = future.getNow().newEngine(ctx.alloc());
        if (tls12Only()) {
            // TLS 1.3 servers send session tickets after the handshake, also after a resumption; uploading
            // clients (lftp, Java) never read them and close with them unread, and the reset that follows
            // discards the end of the upload. TLS 1.2 has nothing after the handshake.
            engine.setEnabledProtocols(new String[] {"TLSv1.2"});
        }
        SslHandler ssl = new SslHandler(engine);
        if (session.server().config().requireTlsSessionReuse()) {
            Optional<SSLSession> control = session.tlsSession();
            ssl.handshakeFuture().addListener(f -> {
                if (f.isSuccess() && !DataChannelInitializer.reuses(engine.getSession(), control)) {
                    log.info("{} data connection did not resume the control TLS session; closing", session);
                    ctx.pipeline().fireExceptionCaught(new DataConnectionException(
                            "the data connection must resume the control connection's TLS session"));
                }
            });
        }
        ctx.pipeline().replace(this, DataChannelInitializer.SSL, ssl);
        installed.trySuccess(null);
    }

    /**
     * Whether a ClientHello (RFC 8446 §4.1.2, from {@code legacy_version} on) offers a session this
     * connection can resume: a TLS 1.2 session ticket or session id, or, unless {@code tls12Only}, a TLS 1.3
     * pre-shared key. A TLS 1.3 client's session id is a compatibility placeholder unless the connection
     * is limited to TLS 1.2, where it names a TLS 1.2 session.
     */
    static boolean attemptsResumption(ByteBuf hello, boolean tls12Only) {
        int i = hello.readerIndex() + 2 + 32;
        int end = hello.writerIndex();
        if (i + 1 > end) {
            return false;
        }
        int sessionIdLength = hello.getUnsignedByte(i);
        i += 1 + sessionIdLength;
        if (i + 2 > end) {
            return false;
        }
        i += 2 + hello.getUnsignedShort(i); // cipher suites
        if (i + 1 > end) {
            return false;
        }
        i += 1 + hello.getUnsignedByte(i); // compression methods
        if (i + 2 > end) {
            return false;
        }
        int extensionsEnd = Math.min(end, i + 2 + hello.getUnsignedShort(i));
        i += 2;
        boolean supportsTls13 = false;
        boolean ticket = false;
        while (i + 4 <= extensionsEnd) {
            int type = hello.getUnsignedShort(i);
            int length = hello.getUnsignedShort(i + 2);
            if (type == EXT_PRE_SHARED_KEY && !tls12Only) {
                return true;
            }
            if (type == EXT_SESSION_TICKET && length > 0) {
                ticket = true;
            }
            if (type == EXT_SUPPORTED_VERSIONS) {
                supportsTls13 = true;
            }
            i += 4 + length;
        }
        return ticket || (sessionIdLength > 0 && (tls12Only || !supportsTls13));
    }
}
