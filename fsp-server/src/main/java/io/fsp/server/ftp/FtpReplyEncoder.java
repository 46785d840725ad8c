package io.fsp.server.ftp;

import io.fsp.server.metrics.ServerMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import java.util.List;

/**
 * Writes {@link FtpReply}s: {@code 200 text} for one line; {@code 211-first}, the middle lines, and
 * {@code 211 last} for several (RFC 959 §4.2). CR and LF inside a line are replaced by spaces, and a
 * middle line that starts with a digit is indented, so no line can be mistaken for a reply's end. Every reply
 * passes here, so error replies are counted here.
 */
@Sharable
public final class FtpReplyEncoder extends MessageToByteEncoder<FtpReply> {
    private final ServerMetrics metrics;

    /** Counting nothing. */
    public FtpReplyEncoder() {
        this(null);
    }

    /** @param metrics counts the error replies (null: nothing) */
    public FtpReplyEncoder(ServerMetrics metrics) {
        super(FtpReply.class);
        this.metrics = metrics;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, FtpReply reply, ByteBuf out) {
        if (metrics != null) {
            metrics.reply(reply.code().value());
        }
        List<String> lines = reply.lines();
        String code = reply.code().toString();
        for (int i = 0; i < lines.size(); i++) {
            String text = clean(lines.get(i));
            boolean first = i == 0;
            boolean last = i == lines.size() - 1;
            if (first) {
                out.writeCharSequence(code, java.nio.charset.StandardCharsets.US_ASCII);
                out.writeByte(last ? ' ' : '-');
            } else if (last) {
                out.writeCharSequence(code, java.nio.charset.StandardCharsets.US_ASCII);
                out.writeByte(' ');
            } else if (!text.isEmpty() && Character.isDigit(text.charAt(0))) {
                out.writeByte(' ');
            }
            ByteBufUtil.writeUtf8(out, text);
            out.writeByte('\r').writeByte('\n');
        }
    }

    private static String clean(String line) {
        return line.indexOf('\r') < 0 && line.indexOf('\n') < 0 ? line : line.replace('\r', ' ').replace('\n', ' ');
    }
}
