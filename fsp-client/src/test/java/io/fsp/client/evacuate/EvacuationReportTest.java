package io.fsp.client.evacuate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvacuationReportTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    /** {@code n} files of one block each, in the server's order: docs/… first (FPRI), then big/…; {@code out} placed. */
    private static List<Announcement> transfer(int n, int out) {
        List<String> lines = new ArrayList<>();
        lines.add("FSP 00112233445566ff kind=directory files=" + n + " directories=2 bytes=" + n + " blocks=" + n);
        lines.add("KEY none");
        lines.add("DIR big");
        lines.add("DIR docs");
        for (int i = 0; i < n; i++) {
            lines.add("FILE " + i + " 1 0 " + (i < n / 2 ? "docs%2Ff" : "big%2Ff") + i);
        }
        for (int i = 0; i < out; i++) {
            lines.add("BLK " + i + " relay:0 " + i + " 0 1 " + DIGEST);
        }
        List<Announcement> parsed = new ArrayList<>();
        lines.forEach(l -> parsed.add(ExtensionCodec.parse(l)));
        return parsed;
    }

    private static EvacuationReport report(int n, int out, List<String> priority) {
        return new EvacuationReport(Path.of("m.sealed"), transfer(n, out), priority, State.PARTIAL, true, 1.5,
                Instant.parse("2026-12-01T00:00:00Z"), null, 1);
    }

    @Test
    void eachPriorityEntrySaysHowMuchOfItIsOut() {
        String text = report(400, 250, List.of("docs", "big/f399", "none")).toText();
        assertTrue(text.contains("priority 'docs': all 200 files out"), text);
        assertTrue(text.contains("priority 'big/f399': 0 of 1 files out"), text);
        assertTrue(text.contains("priority 'none' names no file of the data set"), text);
    }

    @Test
    void aLargeDataSetNamesTheFirstFilesNotOutThenCountsTheRest() {
        String text = report(1000, 300, List.of()).toText();
        assertEquals(EvacuationReport.MAX_LISTED, text.lines().filter(l -> l.startsWith("  NOT OUT  ") && l.endsWith("bytes on relays)")).count(), text);
        assertTrue(text.contains("NOT OUT  600 more files (--json lists every file)"), text);
        assertFalse(text.contains(" out      "), "files that are out are not listed one by one: " + text);
        assertTrue(report(1000, 300, List.of()).toJson().contains("\"big/f999\""), "--json names every file");
    }

    private static final String FP = "AB:" + "01:".repeat(30) + "CD";

    /** Two files (the second packed into the first's last block), two relays, one of them stopped early. */
    private static EvacuationReport copies(int replicas, String... blocks) {
        List<String> lines = new ArrayList<>(List.of("FSP 00112233445566ff kind=directory files=3 directories=0 bytes=9000"
                        + " blocks=3", "KEY none", "RELAY 0 127.0.0.1:7001 " + FP, "RELAY 1 127.0.0.1:7002 " + FP,
                "SPACE 0 9000 9000", "SPACE 1 4096 9000", "REFUSED 127.0.0.1:7003 UNREACHABLE Connection%20refused",
                "FILE 0 8000 0 a.bin", "FILE 1 500 0 b.txt", "FILE 2 500 0 c.txt"));
        lines.addAll(List.of(blocks));
        List<Announcement> parsed = new ArrayList<>();
        lines.forEach(l -> parsed.add(ExtensionCodec.parse(l)));
        return new EvacuationReport(Path.of("m"), parsed, List.of(), State.COMPLETE, false, 1, Instant.EPOCH, null, replicas);
    }

    @Test
    void copiesArePerFileAndPerRelayAndTheShortOnesAreNamedWithTheReasons() {
        EvacuationReport r = copies(2, "BLK 0 relay:0,1 0 0 4096 " + DIGEST, "STOPPED 1 NO_SPACE reservation%20full",
                "BLK 1 relay:0 0 4096 3904 " + DIGEST, "BLK 2 relay:0 1 0 1000 " + DIGEST);
        assertTrue(r.isComplete(), "every file is out");
        assertFalse(r.hasEveryCopy());
        assertEquals(List.of("a.bin", "b.txt", "c.txt"), r.shortOfCopies().stream().map(EvacuationReport.FileOut::name).toList());
        String text = r.toText();
        assertTrue(text.contains("copies: 1 to 2 per block (--replicas 2); 3 files (3 blocks) SHORT of 2 copies"), text);
        assertTrue(text.contains("relay 127.0.0.1:7001: 3 blocks, 8.8 KiB, reserved 8.8 KiB"), text);
        assertTrue(text.contains("relay 127.0.0.1:7002: 1 blocks, 4.0 KiB, reserved 4.0 KiB"), text);
        assertTrue(text.contains("SHORT OF COPIES  a.bin (1 blocks on fewer than 2 relays; 1 to 2 copies)"), text);
        assertTrue(text.contains("SHORT OF COPIES  c.txt (1 blocks on fewer than 2 relays; 1 to 1 copies)"), text);
        assertTrue(text.contains("relay 127.0.0.1:7003 refused: UNREACHABLE: Connection refused"), text);
        assertTrue(text.contains("relay 127.0.0.1:7002 stopped taking blocks: NO_SPACE: reservation full"), text);
        String json = r.toJson();
        assertTrue(json.contains("\"replicas\":2,\"every_copy\":false,\"short_of_copies\":[{\"file\":\"a.bin\",\"blocks\":1},"), json);
        assertTrue(json.contains("\"copies\":[{\"file\":\"a.bin\",\"min\":1,\"max\":2},"), json);
        assertTrue(json.contains("{\"relay\":\"127.0.0.1:7002\",\"blocks\":1,\"bytes\":4096,\"reserved\":4096}"), json);
        assertTrue(json.contains("\"stopped\":[{\"relay\":\"127.0.0.1:7002\",\"reason\":\"NO_SPACE\",\"text\":\"reservation full\"}]"), json);
    }

    @Test
    void aBlockAnnouncedAgainWithAnotherHolderCountsBoth() {
        EvacuationReport r = copies(2, "BLK 0 relay:0,1 0 0 4096 " + DIGEST, "BLK 1 relay:0 0 4096 3904 " + DIGEST,
                "BLK 2 relay:1,0 1 0 1000 " + DIGEST, "BLK 1 relay:1 0 4096 3904 " + DIGEST);
        assertTrue(r.hasEveryCopy(), r.toText());
        assertTrue(r.toText().contains("copies: 2 to 2 per block (--replicas 2)\n") || r.toText().contains("copies: 2 to 2 per block (--replicas 2)\r\n"), r.toText());
        assertTrue(copies(1, "BLK 0 relay:0 0 0 4096 " + DIGEST, "BLK 1 relay:0 0 4096 3904 " + DIGEST,
                "BLK 2 relay:1 1 0 1000 " + DIGEST).hasEveryCopy());
    }

    @Test
    void aDirectoryEntryDoesNotNameItsSiblingsWithTheSamePrefix() {
        List<String> lines = List.of("FSP 00112233445566ff kind=directory files=3 directories=0 bytes=3 blocks=3", "KEY none",
                "FILE 0 1 0 a", "FILE 1 1 0 a%2Fx", "FILE 2 1 0 a-b", "BLK 0 relay:0 0 0 1 " + DIGEST);
        List<Announcement> parsed = new ArrayList<>();
        lines.forEach(l -> parsed.add(ExtensionCodec.parse(l)));
        EvacuationReport r = new EvacuationReport(Path.of("m"), parsed, List.of("a"), State.PARTIAL, false, 1,
                Instant.EPOCH, null, 1);
        assertEquals(List.of("a", "a/x"), r.byPriority().get("a").stream().map(EvacuationReport.FileOut::name).toList());
    }
}
