package io.fsp.testkit.meridian;

import io.fsp.meridian.wire.MeridianCodec;
import io.fsp.meridian.wire.MeridianFormatException;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.WireLimits;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Wide-area round trips between Meridian endpoints on loopback, where there is no netem to delay packets: each
 * endpoint has a position on a plane whose unit is the millisecond, and answers a probe after its distance to the
 * prober. An endpoint at {@code self} is started with {@link #repliesFrom repliesFrom(self)} as the extra handler of
 * its datagram pipeline ({@code MeridianService.start}, {@code ProbeResponder.start}, {@code RelayOverlay.join});
 * {@link #place} tells where the endpoint on a port is, once it is bound.
 */
public final class EmulatedLatency {
    private static final MeridianCodec CODEC = new MeridianCodec(WireLimits.DEFAULT);

    private final Map<Integer, double[]> positionByPort = new ConcurrentHashMap<>();

    /** The endpoint listening on {@code port} (of 127.0.0.1 or ::1) stands at {@code position}. */
    public void place(int port, double[] position) {
        positionByPort.put(port, position.clone());
    }

    /** The distance in milliseconds between two positions. */
    public static double distance(double[] a, double[] b) {
        return Math.hypot(a[0] - b[0], a[1] - b[1]);
    }

    /**
     * The handler of an endpoint at {@code self}: it holds back each PONG the endpoint sends by the distance to its
     * recipient, nothing to an endpoint not placed (and every other datagram not at all).
     */
    public ChannelHandler repliesFrom(double[] self) {
        double[] at = self.clone();
        return new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                double[] to = msg instanceof DatagramPacket d && isPong(d) ? positionByPort.get(d.recipient().getPort())
                        : null;
                long nanos = to == null ? 0 : (long) (distance(at, to) * 1e6);
                if (nanos <= 0) {
                    ctx.write(msg, promise);
                    return;
                }
                ctx.executor().schedule(() -> ctx.writeAndFlush(msg, promise), nanos, TimeUnit.NANOSECONDS);
            }
        };
    }

    private static boolean isPong(DatagramPacket packet) {
        try {
            return CODEC.decodeDatagram(packet.content().duplicate()).message() instanceof MeridianMessage.Pong;
        } catch (MeridianFormatException e) {
            return false;
        }
    }
}
