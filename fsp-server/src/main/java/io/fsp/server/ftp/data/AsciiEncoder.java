package io.fsp.server.ftp.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * TYPE A on the way out (RFC 959 §3.1.1.1): every LF becomes CRLF. Each LF is converted, also one already
 * preceded by CR, so a client that turns CRLF back into LF gets the file's exact bytes.
 */
public final class AsciiEncoder extends MessageToByteEncoder<ByteBuf> {
    public AsciiEncoder() {
        super(ByteBuf.class, false);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf in, ByteBuf out) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        int from = start;
        for (int i = in.indexOf(from, end, (byte) '\n'); i >= 0; i = in.indexOf(from, end, (byte) '\n')) {
            out.writeBytes(in, from, i - from).writeByte('\r').writeByte('\n');
            from = i + 1;
        }
        out.writeBytes(in, from, end - from);
        in.readerIndex(end);
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        // Worst case every byte is an LF.
        int size = msg.readableBytes();
        return ctx.alloc().ioBuffer(size + Math.min(size, 4096), size * 2);
    }
}
