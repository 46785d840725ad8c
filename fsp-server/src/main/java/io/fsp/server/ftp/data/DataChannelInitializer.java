package io.fsp.server.ftp.data;

import io.fsp.server.ftp.FtpSession;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.Arrays;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets up a connected data channel for a transfer: {@code metrics} → {@code [ssl]} → {@code [ascii]} →
 * {@code chunked} → transfer handler. With PROT P the server is the TLS server on the data connection (RFC 4217 §7); its
 * {@code ssl} handler is chosen from the client's first message by {@link DataClientHelloHandler}.
 */
public final class DataChannelInitializer {
    public static final String SSL = "ssl";
    public static final String ASCII = "ascii";
    public static final String CHUNKED = "chunked";
    public static final String ERRORS = "errors";
    public static final String METRICS = "metrics";
    private static final Logger log = LoggerFactory.getLogger(DataChannelInitializer.class);
    /** TLS begun when the connection was made ({@link #startEarly}), until the transfer takes it over. */
    private static final AttributeKey<Promise<Void>> EARLY_TLS = AttributeKey.valueOf("fsp.data.earlyTls");

    private DataChannelInitializer() {
    }

    /**
     * Adds the handlers. The future completes when the channel is ready for the transfer's handlers:
     * at once when clear; with TLS, once the client's first message chose the TLS handler (the
     * handshake itself then runs on; writes wait for it inside the TLS handler).
     */
    public static Future<Void> init(FtpSession session, Channel ch, boolean upload) {
        ChannelPipeline p = ch.pipeline();
        p.addLast(CHUNKED, new ChunkedWriteHandler());
        Promise<Void> early = ch.attr(EARLY_TLS).getAndSet(null);
        if (early != null) {
            if (!session.protectData()) {
                return ch.eventLoop().newFailedFuture(new DataConnectionException(
                        "the data connection was made under PROT P, the transfer asks for PROT C"));
            }
            DataClientHelloHandler hello = p.get(DataClientHelloHandler.class);
            if (hello != null) { // no ClientHello yet: it is answered for this transfer
                hello.transfer(upload);
            }
            return early;
        }
        if (!session.protectData()) {
            p.addFirst(METRICS, session.server().metrics().dataBytes());
            return ch.eventLoop().newSucceededFuture(null);
        }
        return startTls(session, ch, upload);
    }

    /**
     * Under PROT P, begins TLS on a passive data connection as soon as it is made, before its transfer command
     * ({@link #init} then takes it over): a client may start its handshake at once and wait for it before it
     * reads the control connection again, as curl does (each download would otherwise wait out curl's poll,
     * 0.2–1 s). On the channel's loop.
     */
    public static void startEarly(FtpSession session, Channel ch) {
        if (session.protectData()) {
            ch.attr(EARLY_TLS).set(startTls(session, ch, null));
        }
    }

    private static Promise<Void> startTls(FtpSession session, Channel ch, Boolean upload) {
        Promise<Void> installed = ch.eventLoop().newPromise();
        ch.pipeline().addFirst(SSL, new DataClientHelloHandler(session, upload, installed));
        ch.pipeline().addFirst(METRICS, session.server().metrics().dataBytes()); // the bytes on the wire, TLS records
        ch.read(); // the ClientHello; the TLS handler reads on as it needs
        return installed;
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
