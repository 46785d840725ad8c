package io.fsp.server.ftp;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The control channel pipeline: {@code [ssl]} (inserted by AUTH TLS) → {@code idle} → {@code request}
 * (framing, UTF-8, line limit) → {@code reply} → {@code control}. Handler names are constants so that
 * commands can insert before them.
 */
public final class FtpServerInitializer extends ChannelInitializer<SocketChannel> {
    public static final String SSL = "ssl";
    public static final String IDLE = "idle";
    public static final String REQUEST = "request";
    public static final String REPLY = "reply";
    public static final String CONTROL = "control";

    private final FtpServerContext server;
    private final FtpReplyEncoder replyEncoder;

    public FtpServerInitializer(FtpServerContext server) {
        this.server = server;
        this.replyEncoder = new FtpReplyEncoder(server.metrics());
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        p.addLast(IDLE, new IdleStateHandler(0, 0, server.config().limits().idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        p.addLast(REQUEST, new FtpRequestDecoder(server.config().limits().maxLineLength()));
        p.addLast(REPLY, replyEncoder);
        p.addLast(CONTROL, new FtpControlHandler(server));
    }
}
