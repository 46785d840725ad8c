package io.fsp.meridian.net;

import io.fsp.meridian.wire.MeridianCodec;
import io.fsp.meridian.wire.MeridianFormatException;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes each datagram and hands the message to {@code receiver}; answers probes itself (after the
 * configured {@link ReplyDelay}). A malformed or oversized datagram is counted, logged at DEBUG and
 * dropped: a bad peer cannot stop the node.
 */
final class MeridianDatagramHandler extends SimpleChannelInboundHandler<DatagramPacket> {
    private static final Logger log = LoggerFactory.getLogger(MeridianDatagramHandler.class);

    private final MeridianCodec codec;
    private final ReplyDelay replyDelay;
    private final AtomicLong rejected = new AtomicLong();
    private final java.util.concurrent.CountDownLatch warmedUp = new java.util.concurrent.CountDownLatch(1);
    private volatile BiConsumer<InetSocketAddress, MeridianMessage> receiver;

    MeridianDatagramHandler(MeridianCodec codec, ReplyDelay replyDelay) {
        this.codec = codec;
        this.replyDelay = replyDelay;
    }

    void receiver(BiConsumer<InetSocketAddress, MeridianMessage> receiver) {
        this.receiver = receiver;
    }

    long rejected() {
        return rejected.get();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        InetSocketAddress from = packet.sender();
        MeridianMessage message;
        try {
            message = codec.decode(packet.content());
        } catch (MeridianFormatException e) {
            rejected.incrementAndGet();
            log.debug("meridian: dropped datagram from {}: {}", from, e.getMessage());
            return;
        }
        if (message instanceof Ping p) {
            Duration delay = replyDelay.delayFor(from);
            if (delay.isZero() || delay.isNegative()) {
                send(ctx.channel(), codec, from, new Pong(p.nonce()));
            } else {
                ctx.executor().schedule(() -> send(ctx.channel(), codec, from, new Pong(p.nonce())),
                        delay.toNanos(), TimeUnit.NANOSECONDS);
            }
            return;
        }
        if (message instanceof Pong && from.equals(ctx.channel().localAddress())) {
            warmedUp.countDown(); // the answer to our own warm-up ping: nothing else to do
            return;
        }
        BiConsumer<InetSocketAddress, MeridianMessage> r = receiver;
        if (r != null) {
            r.accept(from, message);
        }
    }

    /**
     * Pings this endpoint itself once and waits (at most a second) for the answer, so that the classes and
     * buffers of the probe path are loaded before anyone measures it: a cold JVM answers its first probe
     * tens to hundreds of milliseconds late, which would place it too far away.
     */
    void warmUp(Channel channel, MeridianCodec codec) throws InterruptedException {
        InetSocketAddress self = (InetSocketAddress) channel.localAddress();
        if (self.getAddress().isAnyLocalAddress()) {
            return; // a wildcard endpoint does not know which of its addresses the answer would come from
        }
        send(channel, codec, self, new Ping(0));
        warmedUp.await(1, TimeUnit.SECONDS);
    }

    static void send(Channel channel, MeridianCodec codec, InetSocketAddress to, MeridianMessage message) {
        try {
            channel.writeAndFlush(new DatagramPacket(codec.encode(message, channel.alloc()), to), channel.voidPromise());
        } catch (IllegalArgumentException e) {
            log.warn("meridian: not sending {} to {}: {}", message.getClass().getSimpleName(), to, e.getMessage());
        }
    }
}
