package io.fsp.it.harness;

import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrameDecoder;
import io.fsp.relaylink.wire.RelayFrameEncoder;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.SslContexts;
import io.fsp.token.TransferId;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A relay on 127.0.0.1 that speaks the relay wire over TLS (HELLO, OPEN_TRANSFER, PUT_BLOCK, ABORT_TRANSFER,
 * FINISH_TRANSFER) and
 * records what a server asks of it, for tests of the server's side: whether a transfer was opened retained and
 * until when, which blocks were pushed, whether it was aborted or finished, how many connections the server opened. It
 * stores {@code room} blocks of each transfer and refuses the next ones with NO_SPACE, as a relay refuses a
 * retained transfer's blocks beyond its reservation. It keeps no block bytes.
 */
public final class RecordingRelay implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final KeyMaterial key;
    private final int room;
    private final Channel listener;
    private final List<RelayMessage.OpenTransfer> opened = new CopyOnWriteArrayList<>();
    private final List<TransferId> aborted = new CopyOnWriteArrayList<>();
    private final List<TransferId> finished = new CopyOnWriteArrayList<>();
    private final Map<TransferId, List<Long>> stored = new ConcurrentHashMap<>();
    private final Map<TransferId, List<Long>> refused = new ConcurrentHashMap<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();

    private RecordingRelay(int room) throws Exception {
        this.key = Certificates.selfSigned("recording-relay");
        this.room = room;
        SslContext ssl = SslContexts.server(key);
        this.listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        open.incrementAndGet();
                        ch.closeFuture().addListener(f -> open.decrementAndGet());
                        ch.pipeline().addLast(ssl.newHandler(ch.alloc()))
                                .addLast(new RelayFrameDecoder(RelayLimits.DEFAULT, true))
                                .addLast(new RelayFrameEncoder())
                                .addLast(new Session());
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    /** Starts a relay that stores {@code room} blocks of each transfer and refuses more with NO_SPACE. */
    public static RecordingRelay start(int room) throws Exception {
        return new RecordingRelay(room);
    }

    /** {@code 127.0.0.1:PORT=FINGERPRINT}, as the server's relay list names it. */
    public String spec() {
        return "127.0.0.1:" + ((InetSocketAddress) listener.localAddress()).getPort() + "=" + fingerprint();
    }

    public Fingerprint fingerprint() {
        return key.fingerprint();
    }

    /** Every OPEN_TRANSFER received, in order. */
    public List<RelayMessage.OpenTransfer> opened() {
        return List.copyOf(opened);
    }

    /** The transfers the server aborted. */
    public List<TransferId> aborted() {
        return List.copyOf(aborted);
    }

    /** The transfers the server finished (FINISH_TRANSFER: it pushes nothing more into them). */
    public List<TransferId> finished() {
        return List.copyOf(finished);
    }

    /** The blocks of {@code id} stored (acknowledged), in the order pushed. */
    public List<Long> stored(TransferId id) {
        List<Long> s = stored.get(id);
        return s == null ? List.of() : List.copyOf(s);
    }

    /** The blocks of {@code id} refused with NO_SPACE, in the order pushed. */
    public List<Long> refused(TransferId id) {
        List<Long> r = refused.get(id);
        return r == null ? List.of() : List.copyOf(r);
    }

    /** TLS connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    /** TLS connections accepted and not closed. */
    public int openConnections() {
        return open.get();
    }

    private final class Session extends SimpleChannelInboundHandler<RelayMessage> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, RelayMessage m) {
            if (m instanceof RelayMessage.Hello h) {
                ctx.writeAndFlush(new RelayMessage.Welcome(h.id(), RelayMessage.VERSION, RelayRole.SERVER));
            } else if (m instanceof RelayMessage.OpenTransfer o) {
                opened.add(o);
                ctx.writeAndFlush(new RelayMessage.Ok(o.id()));
            } else if (m instanceof RelayMessage.PutBlock p) {
                List<Long> kept = stored.computeIfAbsent(p.transferId(), t -> new CopyOnWriteArrayList<>());
                if (kept.size() < room) {
                    kept.add(p.seq());
                    ctx.writeAndFlush(new RelayMessage.Ok(p.id()));
                } else {
                    refused.computeIfAbsent(p.transferId(), t -> new CopyOnWriteArrayList<>()).add(p.seq());
                    ctx.writeAndFlush(new RelayMessage.Error(p.id(), RelayErrorCode.NO_SPACE, "block " + p.seq()
                            + ": beyond the reservation of retained transfer " + p.transferId()));
                }
            } else if (m instanceof RelayMessage.AbortTransfer a) {
                aborted.add(a.transferId());
                ctx.writeAndFlush(new RelayMessage.Ok(a.id()));
            } else if (m instanceof RelayMessage.FinishTransfer f) {
                finished.add(f.transferId());
                ctx.writeAndFlush(new RelayMessage.Ok(f.id()));
            } else {
                ctx.writeAndFlush(new RelayMessage.Error(m.id(), RelayErrorCode.BAD_FRAME, "not recorded: " + m));
            }
        }
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
