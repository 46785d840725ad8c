package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class AnnouncementTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    private static Announcement parse(String line) {
        return Announcement.parse(line.split(" "));
    }

    @Test
    void parsesABlockLine() {
        Announcement a = parse("BLK 7 relay:2 3 1048576 4096 " + DIGEST);
        assertEquals(7, a.seq());
        assertEquals(2, a.relay());
        assertEquals(3, a.file());
        assertEquals(1048576, a.offset());
        assertEquals(4096, a.length());
        assertEquals(List.of(2), a.holders());
        assertEquals(-1, parse("BLK 7 direct 3 0 1 " + DIGEST).relay());
        assertEquals(List.of(), parse("BLK 7 origin 3 0 1 " + DIGEST).holders());
    }

    @Test
    void aBlockOnSeveralRelaysIsFetchedFirstFromTheFirst() {
        Announcement a = parse("BLK 9 relay:2,0,5 0 0 4096 " + DIGEST);
        assertEquals("relay:2", a.source());
        assertEquals(List.of(2, 0, 5), a.holders());
        Announcement replica = a.at(5);
        assertEquals(5, replica.relay());
        assertEquals(a.holders(), replica.holders());
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 9 relay:2,2 0 0 4096 " + DIGEST));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 9 relay:1,2,3,4 0 0 4096 " + DIGEST));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 9 relay:1, 0 0 4096 " + DIGEST));
    }

    @Test
    void refusesMalformedLines() {
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 7 relay:2 3 0 4096"));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 7 elsewhere 3 0 4096 " + DIGEST));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK -1 direct 3 0 4096 " + DIGEST));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 1 direct 3 0 0 " + DIGEST));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 1 direct 3 0 99999999 " + DIGEST));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK 1 direct 3 0 10 sha256:zz"));
        assertThrows(IllegalArgumentException.class, () -> parse("BLK x direct 3 0 10 " + DIGEST));
    }
}
