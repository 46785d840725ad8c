package io.fsp.it.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestbedReportTest {
    private static final long MIB16 = 16L << 20;

    @Test
    void oneTableAndOnePlotPerDataSetWithRatiosToTheirOwnDirectRun(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("results.tsv");
        Files.write(tsv, List.of(
                "scenario\trun\tbytes\tstriped_s\tprocess_s\tlinks\tidentical\tdata\tfsp_clock_s",
                "direct\t1\t" + MIB16 + "\t-1\t16\t1\tyes\tone file\t15",
                "relays 1-2 + direct\t1\t" + MIB16 + "\t5\t15\t3\tyes\tone file\t14",
                "relays 1-2 + direct\t2\t" + MIB16 + "\t6\t17\t3\tyes\tone file\t16",
                "relays 1-2 + direct\t3\t" + MIB16 + "\t7\t16\t3\tyes\tone file\t15",
                "GridFTP -p 1\t1\t" + MIB16 + "\t-1\t16\t1\tyes\tone file\t-1",
                "direct\t1\t" + MIB16 + "\t-1\t20\t1\tyes\tmixed\t19",
                "relays 1-2 + direct\t1\t" + MIB16 + "\t8\t10\t3\tyes\tmixed\t9"));
        TestbedReport.main(new String[] {tsv.toString(), "10", dir.toString()});
        String md = Files.readString(dir.resolve("testbed.md"));
        assertTrue(md.contains("### Data: one file") && md.contains("### Data: mixed"), md);
        // one file: median of 15, 17, 16 s is 16 s, as long as direct (1.000×); mixed: 10 s against 20 s (2.000×)
        String file = md.substring(md.indexOf("### Data: one file"), md.indexOf("### Data: mixed"));
        String mixed = md.substring(md.indexOf("### Data: mixed"));
        assertTrue(file.contains("| relays 1-2 + direct | 3 | 22.37 |") && file.contains("| 1.000× |"), file);
        assertTrue(mixed.contains("| 2.000× |"), mixed);
        // totals from whole processes, FSP's as the peers'; fsp get's own clock beside (median 15 s), not for the peers
        assertTrue(file.contains("| 1.000× | 8.95 | yes |") && file.contains("| GridFTP -p 1 | 1 | – | – | 8.39 |")
                && file.contains("| 1.000× | – | yes |"), file);
        assertTrue(file.contains("Timing: total (and total / direct): the wall time of the whole client process")
                && mixed.contains("Timing: total (and total / direct): the wall time of the whole client process"), md);
        assertTrue(Files.size(dir.resolve("testbed.png")) > 0 && Files.size(dir.resolve("testbed-mixed.png")) > 0);
    }

    @Test
    void resultsWithoutADataColumnAreOneFile(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("results.tsv");
        Files.write(tsv, List.of("scenario\trun\tbytes\tstriped_s\ttotal_s\tlinks\tidentical",
                "direct\t1\t" + MIB16 + "\t-1\t16\t1\tyes"));
        List<TestbedReport.Run> runs = TestbedReport.read(tsv);
        assertEquals(TestbedReport.ONE_FILE, runs.get(0).data());
    }

    @Test
    void resultsWithATotalColumnSayTheirFspTotalsCameFromFspGetsOwnClock(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("results.tsv");
        Files.write(tsv, List.of("scenario\trun\tbytes\tstriped_s\ttotal_s\tlinks\tidentical\tdata",
                "direct\t1\t" + MIB16 + "\t-1\t16\t1\tyes\tone file"));
        TestbedReport.main(new String[] {tsv.toString(), "10", dir.toString()});
        String md = Files.readString(dir.resolve("testbed.md"));
        assertTrue(md.contains("Timing: total: FSP rows by fsp get's own clock") && md.contains("| 1.000× | – | yes |"), md);
    }
}
