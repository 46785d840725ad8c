package io.fsp.meridian.net;

import io.fsp.meridian.wire.WireLimits;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;

/** Binds the UDP channel Meridian endpoints share. */
final class UdpChannels {
    private UdpChannels() {
    }

    static Channel bind(EventLoopGroup group, InetSocketAddress address, WireLimits limits,
                        MeridianDatagramHandler handler) throws InterruptedException {
        return new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                // One byte more than the limit: a longer datagram arrives truncated to limit + 1 and is rejected.
                .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(limits.maxMessageBytes() + 1))
                .handler(handler)
                .bind(address)
                .sync()
                .channel();
    }
}
