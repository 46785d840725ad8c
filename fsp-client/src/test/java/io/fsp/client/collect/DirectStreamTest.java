package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.fsp.extension.Announcement;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The meeting of direct blocks and their announcements, whichever comes first; no socket. */
class DirectStreamTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    private record Met(BlockLifecycle block, ByteBuf wire) {
    }

    private final List<Met> met = new ArrayList<>();
    private final DirectStream stream = new DirectStream((b, wire) -> met.add(new Met(b, wire)));

    private static BlockLifecycle block(long seq) {
        return new BlockLifecycle(AnnouncedBlock.of((Announcement.Block) io.fsp.extension.ExtensionCodec.parse("BLK " + seq + " direct 0 0 4096 " + DIGEST)),
                new TransferConditions(true, 2000));
    }

    @Test
    void blockBeforeItsAnnouncementAndAfterItMeetOnce() {
        ByteBuf early = Unpooled.buffer(8);
        stream.meet(1, early);
        assertEquals(List.of(), met);
        BlockLifecycle one = block(1);
        stream.expect(one);
        assertEquals(List.of(new Met(one, early)), met);

        BlockLifecycle two = block(2);
        stream.expect(two);
        ByteBuf late = Unpooled.buffer(8);
        stream.meet(2, late);
        assertEquals(2, met.size());
        assertSame(late, met.get(1).wire());
        assertEquals(1, early.refCnt()); // handed on, not released
    }

    @Test
    void aBlockSentTwiceIsReleasedAndUnclaimedBlocksAreReleasedAtTheEnd() {
        ByteBuf first = Unpooled.buffer(8);
        ByteBuf again = Unpooled.buffer(8);
        stream.meet(5, first);
        stream.meet(5, again);
        assertEquals(0, again.refCnt());
        assertEquals(1, first.refCnt());
        stream.releaseUnclaimed(); // never announced direct (the journal held it)
        assertEquals(0, first.refCnt());
        assertEquals(List.of(), met);
    }
}
