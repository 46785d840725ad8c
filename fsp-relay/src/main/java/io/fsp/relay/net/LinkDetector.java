package io.fsp.relay.net;

import io.fsp.relaylink.wire.ClearLink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first handler of every relay connection: a TLS handshake record (0x16) makes it a TLS connection, the clear-link
 * preamble with a granted ticket a clear link (§3.7); anything else is closed. It then leaves the pipeline, handing on
 * what it read beyond the preamble.
 */
final class LinkDetector extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(LinkDetector.class);
    private static final int TLS_HANDSHAKE = 0x16;

    private final ClearLinks links;
    private final Consumer<ChannelHandlerContext> tls;
    private final BiConsumer<ChannelHandlerContext, ClearLinks.Grant> clear;

    LinkDetector(ClearLinks links, Consumer<ChannelHandlerContext> tls, BiConsumer<ChannelHandlerContext, ClearLinks.Grant> clear) {
        this.links = links;
        this.tls = tls;
        this.clear = clear;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!in.isReadable()) {
            return;
        }
        if (in.getUnsignedByte(in.readerIndex()) == TLS_HANDSHAKE) {
            tls.accept(ctx);
            ctx.pipeline().remove(this);
            return;
        }
        int preamble = ClearLink.PREAMBLE.length;
        int prefix = Math.min(in.readableBytes(), preamble);
        byte[] start = new byte[prefix];
        in.getBytes(in.readerIndex(), start);
        if (!Arrays.equals(start, Arrays.copyOf(ClearLink.PREAMBLE, prefix))) {
            refuse(ctx, in, "neither TLS nor a clear link");
            return;
        }
        if (in.readableBytes() < preamble + ClearLink.TICKET_LENGTH) {
            return; // the decoder asks for more (auto-read is off)
        }
        in.skipBytes(preamble);
        byte[] ticket = new byte[ClearLink.TICKET_LENGTH];
        in.readBytes(ticket);
        ClearLinks.Grant grant = links.take(ticket);
        if (grant == null) {
            refuse(ctx, in, "clear link with a ticket not granted, taken or lapsed");
            return;
        }
        clear.accept(ctx, grant);
        ctx.pipeline().remove(this);
    }

    private static void refuse(ChannelHandlerContext ctx, ByteBuf in, String why) {
        log.debug("{}: {}: closing", ctx.channel().remoteAddress(), why);
        in.skipBytes(in.readableBytes());
        ctx.close();
    }
}
