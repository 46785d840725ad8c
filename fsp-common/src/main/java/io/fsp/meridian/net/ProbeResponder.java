package io.fsp.meridian.net;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.wire.MeridianCodec;
import io.fsp.meridian.wire.WireLimits;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * A UDP endpoint that only answers Meridian probes, so that overlay nodes can measure their distance
 * to it: what a client (or a server that is not a member) offers before it asks for relays near it.
 *
 * <pre>{@code
 * try (ProbeResponder probe = ProbeResponder.start(new InetSocketAddress(clientIp, 0))) {
 *     // send probe.address() to whoever runs the query
 * }
 * }</pre>
 */
public final class ProbeResponder implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel channel;
    private final MeridianDatagramHandler handler;

    private ProbeResponder(EventLoopGroup group, Channel channel, MeridianDatagramHandler handler) {
        this.group = group;
        this.channel = channel;
        this.handler = handler;
    }

    public static ProbeResponder start(InetSocketAddress bind) throws InterruptedException {
        return start(bind, Optional.empty());
    }

    /**
     * Starts a responder with {@code extra} in its datagram pipeline before its own handler: it sees every datagram
     * both ways (for a program that embeds the responder; tests emulate wide-area RTTs on loopback so).
     */
    public static ProbeResponder start(InetSocketAddress bind, ChannelHandler extra) throws InterruptedException {
        return start(bind, Optional.of(extra));
    }

    private static ProbeResponder start(InetSocketAddress bind, Optional<ChannelHandler> extra)
            throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            MeridianCodec codec = new MeridianCodec(WireLimits.DEFAULT);
            MeridianDatagramHandler handler = new MeridianDatagramHandler(codec,
                    MeridianConfig.defaults().datagramsPerSecondPerIp());
            Channel channel = UdpChannels.bind(group, bind, WireLimits.DEFAULT, handler, extra);
            handler.warmUp(channel);
            return new ProbeResponder(group, channel, handler);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** The address nodes probe. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Datagrams dropped as malformed. */
    public long rejected() {
        return handler.rejected();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
