package io.fsp.server.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.RecordedTransfer;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionLimits;
import io.fsp.server.select.CollectRelay;
import io.fsp.server.select.CollectRelays;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AnnouncementStreamTest {
    private static final String FSP = "FSP 0123456789abcdef kind=file files=1 directories=0 bytes=10 blocks=1 block-size=1048576";
    private static final String BLK = "BLK 0 relay:0 0 0 10 sha256:" + "ab".repeat(32);
    private static final String FP = "AB:" + "CD:".repeat(30) + "EF";
    /** Allows 127.0.0.1:7001 with certificate FP. */
    private static final CollectRelays RELAYS = new CollectRelays(List.of(),
            List.of(CollectRelay.parse("127.0.0.1:7001=" + FP)), Set.of());

    private static void feed(AnnouncementStream s, String text, int piece) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; i += piece) {
            s.feed(ByteBuffer.wrap(b, i, Math.min(piece, b.length - i)));
        }
    }

    @Test
    void readsLinesInAnyPiecesWithLfOrCrLf() {
        for (int piece : new int[] {1, 3, 1000}) {
            AnnouncementStream s = new AnnouncementStream(1 << 20, 10, RELAYS);
            feed(s, FSP + "\r\nKEY none\nFILE 0 10 0 a.bin\n" + BLK + "\n", piece);
            RecordedTransfer t = s.end();
            assertEquals(4, t.announcements().size());
            assertTrue(t.announcements().get(3) instanceof Announcement.Block);
        }
    }

    @Test
    void refusesWhatIsOverItsLimitsOrMalformed() {
        assertRefused(new AnnouncementStream(100, 10, RELAYS), FSP + "\n" + "KEY none\n".repeat(20), "more than 100 bytes");
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), FSP + "\nDIR " + "a".repeat(ExtensionLimits.MAX_LINE_LENGTH + 2),
                "announcement line 2: more than");
        assertRefused(new AnnouncementStream(1 << 20, 0, RELAYS), FSP + "\n", "blocks: 1 (expected: <= 0");
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), "KEY none\n", "line 1: not an FSP line");
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), FSP + "\n" + FSP + "\n", "line 2: a second FSP line");
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), FSP + "\nBLK x\n", "announcement line 2: ");
        // a name no FCOL may make a path of: refused with the stream, before anything is collected
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), FSP + "\nKEY none\nFILE 0 10 0 ..%2F..%2Fescaped.bin\n",
                "announcement line 3: FILE name \"../../escaped.bin\" is not normalised (expected: no empty, . or .. segments)");
        AnnouncementStream invalid = new AnnouncementStream(1 << 20, 10, RELAYS);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> invalid.feed(ByteBuffer.wrap(new byte[] {'D', 'I', 'R', ' ', (byte) 0xC3, '\n'})));
        assertTrue(e.getMessage().contains("not UTF-8"), e.getMessage());
        AnnouncementStream cut = new AnnouncementStream(1 << 20, 10, RELAYS);
        feed(cut, FSP, 7);
        e = assertThrows(IllegalArgumentException.class, cut::end);
        assertTrue(e.getMessage().contains("ended inside it"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new AnnouncementStream(100, 10, RELAYS).end());
        assertTrue(e.getMessage().contains("empty"), e.getMessage());
        AnnouncementStream twice = new AnnouncementStream(1 << 20, 1, RELAYS);
        feed(twice, FSP + "\n" + BLK + "\n", 5);
        assertThrows(IllegalArgumentException.class, () -> feed(twice, BLK + "\n", 5), "one BLK line per block");
    }

    @Test
    void countsRelayFileAndDirectoryLinesAndRefusesRelaysNotAllowed() {
        String dirFsp = "FSP 0123456789abcdef kind=directory files=1 directories=1 bytes=10 blocks=1 block-size=1048576";
        AnnouncementStream ok = new AnnouncementStream(1 << 20, 10, RELAYS);
        feed(ok, dirFsp + "\nRELAY 0 127.0.0.1:7001 " + FP + "\nDIR d\nFILE 0 10 0 d%2Fa.bin\n", 7);
        assertEquals(4, ok.end().announcements().size());

        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), dirFsp + "\nDIR d\nDIR e\n",
                "line 3: more DIR lines than the FSP line's directories=1");
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), dirFsp + "\nFILE 0 1 0 a\nFILE 1 1 0 b\n",
                "line 3: more FILE lines than the FSP line's files=1");
        assertRefused(new AnnouncementStream(1 << 20, 1, RELAYS), dirFsp + "\n",
                "files and directories: 1 + 1 (expected: <= 1 together");
        StringBuilder many = new StringBuilder(dirFsp).append('\n');
        List<CollectRelay> wide = new java.util.ArrayList<>();
        for (int i = 0; i <= AnnouncementStream.MAX_RELAYS; i++) {
            many.append("RELAY ").append(i).append(" 127.0.0.1:").append(7100 + i).append(' ').append(FP).append('\n');
            wide.add(CollectRelay.parse("127.0.0.1:" + (7100 + i) + "=" + FP));
        }
        assertRefused(new AnnouncementStream(1 << 20, 10, new CollectRelays(List.of(), wide, Set.of())), many.toString(),
                "line 66: more than 64 RELAY lines");
        // one relay under several indices would be connected to as many times
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), dirFsp + "\nRELAY 0 127.0.0.1:7001 " + FP
                + "\nRELAY 5 127.0.0.1:7001 " + FP + "\n", "line 3: relay 5 is relay 0 again");

        IllegalArgumentException e = assertThrows(AnnouncementStream.RelayNotAllowedException.class,
                () -> feed(new AnnouncementStream(1 << 20, 10, RELAYS), FSP + "\nRELAY 3 127.0.0.1:7002 " + FP + "\n", 9));
        assertTrue(e.getMessage().startsWith("relay 3 127.0.0.1:7002: not a relay this server may collect from"),
                e.getMessage());
    }

    @Test
    void readsWhatTheRelaysSaidAndLeavesItOut() {
        String said = "RELAY 0 127.0.0.1:7001 " + FP + "\nSPACE 0 100 200\nREFUSED 127.0.0.1:7002 NO_SPACE full"
                + "\nKEY none\nFILE 0 10 0 a.bin\nSTOPPED 0 NO_SPACE full\n" + BLK + "\n";
        AnnouncementStream s = new AnnouncementStream(1 << 20, 10, RELAYS);
        feed(s, FSP + "\n" + said, 5);
        List<Announcement> kept = s.end().announcements();
        assertEquals(5, kept.size());
        assertTrue(kept.stream().noneMatch(a -> a instanceof Announcement.Space || a instanceof Announcement.Refused
                || a instanceof Announcement.Stopped), kept.toString());

        StringBuilder many = new StringBuilder(FSP).append('\n');
        for (int i = 0; i <= AnnouncementStream.MAX_RELAYS; i++) {
            many.append("REFUSED 127.0.0.1:").append(7100 + i).append(" UNREACHABLE refused\n");
        }
        assertRefused(new AnnouncementStream(1 << 20, 10, RELAYS), many.toString(), "line 66: more than 64 REFUSED lines");
    }

    private static void assertRefused(AnnouncementStream s, String text, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            feed(s, text, 16);
            s.end();
        });
        assertTrue(e.getMessage().contains(expected) && e.getMessage().contains("expected"), e.getMessage());
    }
}
