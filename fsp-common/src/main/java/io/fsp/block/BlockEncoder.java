package io.fsp.block;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Writes a {@link Block} as its wire bytes, unchanged: blocks are encoded once, by the stage pipeline that
 * seals them, and relays forward the bytes they received. No copy: the content is passed on retained.
 */
@Sharable
public final class BlockEncoder extends MessageToMessageEncoder<Block> {
    public static final BlockEncoder INSTANCE = new BlockEncoder();

    public BlockEncoder() {
        super(Block.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Block block, List<Object> out) {
        out.add(block.content().retain());
    }
}
