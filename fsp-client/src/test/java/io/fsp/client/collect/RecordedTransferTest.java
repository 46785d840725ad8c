package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Which files a recorded transfer holds whole: what {@code fsp collect} can collect without an origin. */
class RecordedTransferTest {
    private static final String D = " sha256:" + "ab".repeat(32);

    private static RecordedTransfer of(String... blocks) {
        Stream<String> head = Stream.of("FSP 0123456789abcdef kind=directory files=4 directories=0 bytes=10000 blocks=9",
                "KEY none", "FILE 0 4096 1 a", "FILE 1 5000 1 b", "FILE 2 0 1 empty");
        return new RecordedTransfer(Stream.concat(head, Stream.of(blocks)).map(ExtensionCodec::parse).toList());
    }

    @Test
    void aFileIsWholeWhenBlocksOnRelaysCoverEveryByte() {
        RecordedTransfer r = of("BLK 0 relay:0 0 0 4096" + D, "BLK 1 relay:1,0 1 0 4096" + D, "BLK 2 origin 1 4096 904" + D);
        assertEquals(Set.of(0, 2), r.wholeFiles(), "a, and the empty file; b has a block on no relay");
        assertEquals(List.of("b"), r.missingFiles());
        assertEquals(Map.of(0, 4096L, 1, 4096L), r.placedBytes());
        assertEquals(1, r.unrecordedFiles(), "files=4, three FILE lines");
    }

    @Test
    void aBlockRecordedTwiceCountsOnceAndADirectOneNotAtAll() {
        RecordedTransfer r = of("BLK 0 relay:0 0 0 4096" + D, "BLK 0 relay:0 0 0 4096" + D, "BLK 1 direct 1 0 4096" + D,
                "BLK 2 relay:1 1 4096 904" + D);
        assertEquals(Set.of(0, 2), r.wholeFiles());
        assertEquals(Map.of(0, 4096L, 1, 904L), r.placedBytes());
    }

    @Test
    void aRecordWithoutTheTransferLineIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RecordedTransfer(List.of()));
        assertThrows(IllegalArgumentException.class, () -> new RecordedTransfer(List.<Announcement>of(ExtensionCodec.parse("KEY none"))));
    }
}
