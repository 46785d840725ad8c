package io.fsp.meridian.net;

import io.fsp.meridian.wire.WireLimits;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.util.Optional;

/** Binds the UDP channel Meridian endpoints share. */
final class UdpChannels {
    private UdpChannels() {
    }

    /** With {@code extra}, if given, before {@code handler} in the pipeline (it sees every datagram both ways). */
    static Channel bind(EventLoopGroup group, InetSocketAddress address, WireLimits limits,
                        MeridianDatagramHandler handler, Optional<ChannelHandler> extra) throws InterruptedException {
        return new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                // One byte more than the limit: a longer datagram arrives truncated to limit + 1 and is rejected.
                .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(limits.maxMessageBytes() + 1))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        extra.ifPresent(ch.pipeline()::addLast);
                        ch.pipeline().addLast(handler);
                    }
                })
                .bind(address)
                .sync()
                .channel();
    }
}
