package io.fsp.meridian.net;

import io.fsp.meridian.wire.MeridianCodec;
import io.fsp.meridian.wire.MeridianFormatException;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.Cookie;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes each datagram and hands the message to {@code receiver}; answers probes itself. A malformed or
 * oversized datagram is counted, logged at DEBUG and dropped: a bad peer cannot stop the node.
 *
 * <p>Return addresses (docs/protocol.md §4.3): PINGs and requests beyond the per-IP rate are dropped; a request
 * without a valid cookie for its source is answered with a COOKIE (12 bytes, never more than the request) and
 * nothing else, so a forged source gets back no more than was sent in its name. Requests this endpoint sends carry
 * the cookie the receiver gave it; those answered with a COOKIE go once more with it.
 */
final class MeridianDatagramHandler extends SimpleChannelInboundHandler<DatagramPacket> {
    private static final Logger log = LoggerFactory.getLogger(MeridianDatagramHandler.class);

    private final MeridianCodec codec;
    private final SourceRateLimit rateLimit;
    private final ReturnCookies cookies = new ReturnCookies();
    private final PeerCookies peerCookies = new PeerCookies();
    private final AtomicLong rejected = new AtomicLong();
    private final java.util.concurrent.CountDownLatch warmedUp = new java.util.concurrent.CountDownLatch(1);
    private volatile BiConsumer<InetSocketAddress, MeridianMessage> receiver;

    MeridianDatagramHandler(MeridianCodec codec, int datagramsPerSecondPerIp) {
        this.codec = codec;
        this.rateLimit = new SourceRateLimit(datagramsPerSecondPerIp);
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
        MeridianCodec.Datagram datagram;
        try {
            datagram = codec.decodeDatagram(packet.content());
        } catch (MeridianFormatException e) {
            rejected.incrementAndGet();
            log.debug("meridian: dropped datagram from {}: {}", from, e.getMessage());
            return;
        }
        MeridianMessage message = datagram.message();
        Channel channel = ctx.channel();
        long now = System.nanoTime();
        boolean request = MeridianMessage.isRequest(message);
        if ((message instanceof Ping || request) && !rateLimit.allow(from.getAddress(), now)) {
            log.debug("meridian: dropped {} from {}: over the per-address rate", message.getClass().getSimpleName(), from);
            return;
        }
        if (message instanceof Ping p) {
            send(channel, from, new Pong(p.nonce()));
            return;
        }
        if (message instanceof Pong && from.equals(channel.localAddress())) {
            warmedUp.countDown(); // the answer to our own warm-up ping: nothing else to do
            return;
        }
        BiConsumer<InetSocketAddress, MeridianMessage> r = receiver;
        if (r == null) {
            return; // a probe responder answers probes only
        }
        if (message instanceof Cookie c) {
            for (MeridianMessage again : peerCookies.cookie(from, c.cookie(), now)) {
                write(channel, from, again, c.cookie());
            }
            return;
        }
        if (request && !cookies.valid(from, datagram.cookie(), now)) {
            write(channel, from, new Cookie(cookies.issue(from, now)), MeridianCodec.NO_COOKIE);
            return;
        }
        r.accept(from, message);
    }

    /**
     * Pings this endpoint itself once and waits (at most a second) for the answer, so that the classes and
     * buffers of the probe path are loaded before anyone measures it: a cold JVM answers its first probe
     * tens to hundreds of milliseconds late, which would place it too far away.
     */
    void warmUp(Channel channel) throws InterruptedException {
        InetSocketAddress self = (InetSocketAddress) channel.localAddress();
        if (self.getAddress().isAnyLocalAddress()) {
            return; // a wildcard endpoint does not know which of its addresses the answer would come from
        }
        write(channel, self, new Ping(0), MeridianCodec.NO_COOKIE);
        warmedUp.await(1, TimeUnit.SECONDS);
    }

    /** Sends {@code message}; a request with the cookie {@code to} gave this endpoint (call on the event loop). */
    void send(Channel channel, InetSocketAddress to, MeridianMessage message) {
        long cookie = MeridianMessage.isRequest(message)
                ? peerCookies.sending(to, message, System.nanoTime()) : MeridianCodec.NO_COOKIE;
        write(channel, to, message, cookie);
    }

    private void write(Channel channel, InetSocketAddress to, MeridianMessage message, long cookie) {
        try {
            channel.writeAndFlush(new DatagramPacket(codec.encode(message, cookie, channel.alloc()), to), channel.voidPromise());
        } catch (IllegalArgumentException e) {
            log.warn("meridian: not sending {} to {}: {}", message.getClass().getSimpleName(), to, e.getMessage());
        }
    }
}
