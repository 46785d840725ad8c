package io.fsp.testkit.relay;

import io.fsp.relay.store.BlockStore;
import io.fsp.relaylink.wire.RelayMessage;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.traffic.ChannelTrafficShapingHandler;
import io.netty.util.ReferenceCountUtil;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * A relay's misbehaviour towards clients ({@link FaultPlan}), as a handler of its own between the frame codec and
 * the session, put into each connection's pipeline through {@link FaultPlan#handlers()}: an honest relay's path
 * has no trace of them. It acts on client connections only (a server presents a certificate, a
 * client none), decided at the first frame, once the TLS handshake is done; on a clear link, at the first request.
 */
public final class FaultInjector extends ChannelDuplexHandler {
    private final FaultPlan plan;
    private final BlockStore store;
    private final ForeignBlocks foreign;
    private final String after;
    private Boolean client;

    /**
     * @param after the name of the pipeline's TLS handler: byte-level faults (close after N bytes, throttle) go
     *              right behind it
     * @param foreign the blocks pushed to this relay, shared by its connections' injectors
     */
    FaultInjector(FaultPlan plan, BlockStore store, ForeignBlocks foreign, String after) {
        this.plan = plan;
        this.store = store;
        this.foreign = foreign;
        this.after = after;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (client(ctx, msg) && plan.stalls()) {
            ReferenceCountUtil.release(msg); // a stalled relay reads everything and answers nothing
            return;
        }
        if (msg instanceof RelayMessage.PutBlock p) {
            foreign.pushed(p.transferId(), p.seq());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws java.io.IOException {
        if (msg instanceof RelayMessage.BlockRegion r && client(ctx, null)) {
            msg = inMemory(ctx, r); // the faults change bytes: the ones the kernel would have sent from the file
        }
        if (!(msg instanceof RelayMessage.Block b) || !client(ctx, null)) {
            ctx.write(msg, promise);
            return;
        }
        if (!plan.servesForeign(b.seq())) {
            writeDamaged(ctx, b, promise, false);
            return;
        }
        b.release(); // instead of this block, some other one (or noise of its length)
        foreign.pick(store, b.transferId(), b.seq()).whenComplete((other, error) -> ctx.executor().execute(() -> {
            if (error != null || other.isEmpty()) {
                promise.setFailure(error != null ? error : new IllegalStateException("no block to serve instead"));
                return;
            }
            writeDamaged(ctx, b.replace(other.get()), promise, true);
        }));
    }

    private static RelayMessage.Block inMemory(ChannelHandlerContext ctx, RelayMessage.BlockRegion r) throws java.io.IOException {
        long count = r.region().count();
        ByteBuf bytes = ctx.alloc().buffer(Math.toIntExact(count));
        try {
            java.nio.channels.WritableByteChannel into = java.nio.channels.Channels.newChannel(
                    new io.netty.buffer.ByteBufOutputStream(bytes));
            for (long done = 0; done < count; ) {
                done += r.region().transferTo(into, done);
            }
            return new RelayMessage.Block(r.id(), r.transferId(), r.seq(), bytes);
        } catch (java.io.IOException | RuntimeException e) {
            bytes.release();
            throw e;
        } finally {
            r.release();
        }
    }

    private void writeDamaged(ChannelHandlerContext ctx, RelayMessage.Block b, ChannelPromise promise, boolean flush) {
        ByteBuf original = b.content();
        ByteBuf bytes = original;
        if (plan.flipsBit(b.transferId(), b.seq())) {
            bytes = Tampering.flipBit(bytes);
        }
        if (plan.tampers(b.seq())) {
            bytes = Tampering.tamper(bytes);
        }
        RelayMessage.Block served = bytes == original ? b : b.replace(bytes); // the damage released the original
        if (plan.duplicates(b.seq())) {
            ctx.write(served.retainedDuplicate());
        }
        ctx.write(served, promise);
        if (flush) {
            ctx.flush();
        }
    }

    /**
     * Whether the peer is a client: over TLS, one without a certificate; on a clear link (no TLS), one whose first
     * request after HELLO is a GET_BLOCK (a server's is a PUT_BLOCK). Undecided until then: not a client.
     */
    private boolean client(ChannelHandlerContext ctx, Object inbound) {
        if (client == null) {
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            if (ssl != null) {
                try {
                    ssl.engine().getSession().getPeerCertificates();
                    client = false;
                } catch (SSLPeerUnverifiedException e) {
                    client = true;
                }
            } else if (inbound instanceof RelayMessage.GetBlock) {
                client = true;
            } else if (inbound instanceof RelayMessage.PutBlock) {
                client = false;
            } else {
                return false;
            }
            if (client) {
                plan.closeAfter().ifPresent(n -> addBytewise(ctx, "fault-close", new CloseAfterHandler(n)));
                plan.throttle().ifPresent(rate -> addBytewise(ctx, "fault-throttle",
                        new ChannelTrafficShapingHandler(rate, 0, 100)));
            }
        }
        return client;
    }

    /** Right behind TLS, or first on a clear link: where the bytes are those the client's frames are made of. */
    private void addBytewise(ChannelHandlerContext ctx, String name, io.netty.channel.ChannelHandler handler) {
        if (ctx.pipeline().get(after) != null) {
            ctx.pipeline().addAfter(after, name, handler);
        } else {
            ctx.pipeline().addFirst(name, handler);
        }
    }
}
