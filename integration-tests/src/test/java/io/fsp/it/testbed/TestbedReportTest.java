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
    void agentModesAreRowsOfTheirOwnAndTheTargetsAreJudgedOnTheWarmOnes(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("results.tsv");
        String head = "scenario\trun\tbytes\tstriped_s\tprocess_s\tlinks\tidentical\tdata\tfsp_clock_s\tagent"
                + "\tclient_cpu_s\tagent_cpu_s\tagent_rss_mib\tmachine_cpu_s";
        Files.write(tsv, List.of(head,
                "direct\t1\t" + MIB16 + "\t-1\t18\t1\tyes\tone file\t15\tcold\t0.2\t1.5\t110\t4",
                "direct\t1\t" + MIB16 + "\t-1\t16\t1\tyes\tone file\t15\twarm\t0.01\t0.5\t120\t2",
                // 3 links of 10 Mbit/s: 28.7 Mbit/s of TCP goodput; 16 MiB in 4.8 s is 27.96 Mbit/s, 97.5 %
                "relays 1-3\t1\t" + MIB16 + "\t4.8\t17\t3\tyes\tone file\t16\twarm\t0.01\t0.6\t121\t2",
                "relays 1-3\t1\t" + MIB16 + "\t5.5\t19\t3\tyes\tone file\t16\tcold\t0.2\t1.6\t111\t4",
                "relays 1-2 + direct + overlap\t1\t" + MIB16 + "\t6\t16.2\t3\tyes\tone file\t15\twarm\t0.01\t0.7\t122\t2",
                "fsp-server + curl FTPS\t1\t" + MIB16 + "\t-1\t15.9\t1\tyes\tone file\t-1\t-\t0.1\t-\t-\t1"));
        TestbedReport.main(new String[] {tsv.toString(), "10", dir.toString()});
        String md = Files.readString(dir.resolve("testbed.md"));
        // one row per mode, each against the direct row of its mode; the peer against the warm one
        assertTrue(md.contains("| direct (cold) | 1 |") && md.contains("| direct (warm) | 1 |"), md);
        assertTrue(md.contains("| relays 1-3 (cold) | 1 | 24.40 | 85.1 % | 7.06 | 73.9 % | 0.947× |"), md);
        assertTrue(md.contains("| fsp-server + curl FTPS | 1 | – | – | 8.44 | 88.3 % | 1.006× |"), md);
        // CPU: client, agent, the agent's peak RSS, machine per GiB (2 CPU s for 1/64 GiB)
        assertTrue(md.contains("| 0.01 | 0.50 | 120 | 128.00 |") && md.contains("| 0.10 | – | – | 64.00 |"), md);
        // striping 97.5 % (met); total 16.2 s against curl FTPS's 15.9 s, the best direct FTPS: 0.981× (met)
        assertTrue(md.contains("**Targets** (issue 42, judged on the warm rows): striping (relays 1-3 (warm)) 97.5 % of the "
                + "links (target ≥ 97 %: met); total (relays 1-2 + direct + overlap (warm)) 0.981× the best direct FTPS "
                + "transfer (fsp-server + curl FTPS, 8.44 Mbit/s) (target ≥ 0.98×: met)."), md);
        assertTrue(md.contains("Cold, beside them: striping (relays 1-3 (cold)) 85.1 % of the links."), md);
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
