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
