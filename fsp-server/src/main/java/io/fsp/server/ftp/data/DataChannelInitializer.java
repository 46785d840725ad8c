package io.fsp.server.ftp.data;

import io.fsp.server.ftp.FtpSession;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.util.Arrays;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up a connected data channel for a transfer: {@code [ssl]} → {@code [ascii]} → {@code chunked} →
 * transfer handler. With PROT P the server is the TLS server on the data connection (RFC 4217 §7), with
 * the control connection's SSL context, so a client that resumes the control channel's session
 * (curl, lftp) can, and one that cannot (ftplib, Java's FTPSClient) does a full handshake, unless
 * {@code require-tls-session-reuse} forbids it.
 */
public final class DataChannelInitializer {
    public static final String SSL = "ssl";
    public static final String ASCII = "ascii";
    public static final String CHUNKED = "chunked";
    public static final String ERRORS = "errors";
    private static final Logger log = LoggerFactory.getLogger(DataChannelInitializer.class);

    private DataChannelInitializer() {
    }

    /** Adds the handlers; returns whether the channel is encrypted. */
    public static boolean init(FtpSession session, Channel ch) {
        ChannelPipeline p = ch.pipeline();
        boolean tls = session.protectData();
        if (tls) {
            SSLEngine engine = session.server().sslContext().newEngine(ch.alloc());
            SslHandler ssl = new SslHandler(engine);
            p.addLast(SSL, ssl);
            if (session.server().config().requireTlsSessionReuse()) {
                Optional<SSLSession> control = session.tlsSession();
                ssl.handshakeFuture().addListener(f -> {
                    if (f.isSuccess() && !reuses(engine.getSession(), control)) {
                        log.info("{} data connection did not reuse the control TLS session; closing", session);
                        ch.pipeline().fireExceptionCaught(new DataConnectionException(
                                "the data connection must reuse the control connection's TLS session"));
                    }
                });
            }
        }
        p.addLast(CHUNKED, new ChunkedWriteHandler());
        return tls;
    }

    /**
     * Whether {@code data} resumed {@code control}: TLS 1.2 resumption keeps the session id; the JDK's
     * TLS 1.3 resumption keeps the original session's creation time.
     */
    static boolean reuses(SSLSession data, Optional<SSLSession> control) {
        if (control.isEmpty()) {
            return false;
        }
        SSLSession c = control.get();
        return (data.getId().length > 0 && Arrays.equals(data.getId(), c.getId()))
                || data.getCreationTime() == c.getCreationTime();
    }

    /** The last handler of a sending data channel: errors end the connection, which fails the transfer. */
    static final class ErrorHandler extends ChannelInboundHandlerAdapter {
        private final FtpSession session;
        private Throwable cause;

        ErrorHandler(FtpSession session) {
            this.session = session;
        }

        Throwable cause() {
            return cause;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            io.netty.util.ReferenceCountUtil.release(msg); // a download's client has nothing to say
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable e) {
            if (cause == null) {
                cause = e;
            }
            log.debug("{} data connection error: {}", session, e.toString());
            ctx.close();
        }
    }
}
