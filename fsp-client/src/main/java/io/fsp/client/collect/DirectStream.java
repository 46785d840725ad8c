package io.fsp.client.collect;

import io.fsp.block.BlockLimits;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocks the server sends straight on FRET's data connection (include-direct), read on a thread of their own
 * and paired with their announcements. A block and its announcement meet whichever comes first; the second to
 * arrive hands the pair on, exactly once. (Opening as soon as the announcement was merely seen let a block be
 * verified before it was counted, and a run could end one block early.) Blocks far ahead of their announcements
 * are dropped (bounded memory); they come from the origin instead.
 */
final class DirectStream {
    private static final Logger log = LoggerFactory.getLogger(DirectStream.class);
    static final int MAX_EARLY_BLOCKS = 4096;

    private final Map<Long, Object> meeting = new ConcurrentHashMap<>();
    private final BiConsumer<BlockLifecycle, ByteBuf> arrived;
    private Thread reader;

    /** @param arrived called with a block and its wire bytes (which it then owns) once both are here */
    DirectStream(BiConsumer<BlockLifecycle, ByteBuf> arrived) {
        this.arrived = arrived;
    }

    /** Starts reading blocks from {@code socket} until the server closes it. */
    void start(Socket socket, BlockLimits limits) {
        reader = new Thread(() -> read(socket, limits), "fsp-direct");
        reader.setDaemon(true);
        reader.start();
    }

    /** The block was announced {@code direct}: it meets its wire bytes here. */
    void expect(BlockLifecycle block) {
        meet(block.seq(), block);
    }

    /** Waits up to {@code millis} for the server to close the connection (every direct block read). */
    void awaitEnd(long millis) throws InterruptedException {
        if (reader != null) {
            reader.join(millis);
        }
    }

    /** Releases blocks that arrived but that no announcement asked for (the journal held them). */
    void releaseUnclaimed() {
        meeting.values().forEach(v -> {
            if (v instanceof ByteBuf b) {
                b.release();
            }
        });
        meeting.clear();
    }

    /** One half of a pair: the block's wire bytes, or its lifecycle. */
    void meet(long seq, Object half) {
        Object other = meeting.putIfAbsent(seq, half);
        if (other == null) {
            return; // the other half hands the pair on
        }
        if (other.getClass() == half.getClass() || !meeting.remove(seq, other)) {
            if (half instanceof ByteBuf b) {
                b.release(); // the same block twice
            }
            return;
        }
        BlockLifecycle block = (BlockLifecycle) (half instanceof BlockLifecycle ? half : other);
        ByteBuf wire = (ByteBuf) (half instanceof ByteBuf ? half : other);
        arrived.accept(block, wire);
    }

    private void read(Socket socket, BlockLimits limits) {
        try {
            BlockStreamReader in = new BlockStreamReader(socket.getChannel(), limits);
            for (ByteBuf wire; (wire = in.next()) != null; ) {
                long seq = in.sequence();
                if (meeting.size() < MAX_EARLY_BLOCKS || meeting.containsKey(seq)) {
                    meet(seq, wire);
                } else {
                    wire.release(); // far ahead of the announcements: the block comes from the origin instead
                }
            }
        } catch (IOException | RuntimeException e) {
            log.info("direct data connection ended: {}", e.toString());
        }
    }
}
