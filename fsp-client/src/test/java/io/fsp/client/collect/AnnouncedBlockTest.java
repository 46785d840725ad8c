package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnnouncedBlockTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    private static AnnouncedBlock parse(String line) {
        return AnnouncedBlock.of((Announcement.Block) ExtensionCodec.parse(line));
    }

    @Test
    void aBlockLineNamesItsSource() {
        AnnouncedBlock a = parse("BLK 7 relay:2 3 1048576 4096 " + DIGEST);
        assertEquals(7, a.seq());
        assertEquals(2, a.relay());
        assertEquals(3, a.file());
        assertEquals(1048576, a.offset());
        assertEquals(4096, a.length());
        assertEquals(List.of(2), a.holders());
        assertEquals(-1, parse("BLK 7 direct 3 0 1 " + DIGEST).relay());
        assertEquals(BlockSource.ORIGIN, parse("BLK 7 origin 3 0 1 " + DIGEST).source());
        assertEquals(BlockSource.DIRECT, parse("BLK 7 direct 3 0 1 " + DIGEST).source());
        assertEquals(List.of(), parse("BLK 7 origin 3 0 1 " + DIGEST).holders());
        AnnouncedBlock held = parse("BLK 7 have 3 0 1 -");
        assertEquals(BlockSource.JOURNAL, held.source(), "announced have: the journal holds it");
        assertNull(held.digest());
    }

    @Test
    void aBlockOnSeveralRelaysIsFetchedFirstFromTheFirst() {
        AnnouncedBlock a = parse("BLK 9 relay:2,0,5 0 0 4096 " + DIGEST);
        assertEquals(new BlockSource.Relay(2), a.source());
        assertEquals("relay:2", a.source().toString());
        assertEquals(List.of(2, 0, 5), a.holders());
        AnnouncedBlock replica = a.at(5);
        assertEquals(5, replica.relay());
        assertEquals(a.holders(), replica.holders());
    }
}
