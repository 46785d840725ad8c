package io.fsp.cli;

import static io.fsp.cli.FspRun.fsp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.demo.DemoTree;
import io.fsp.cli.demo.LocalCopy;
import io.fsp.cli.demo.TreeComparison;
import io.fsp.client.collect.CollectSummary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code fsp demo} prints from its figures (the run itself: DemoIT in integration-tests). */
class DemoCommandTest {
    private static final DemoTree.Shape SHAPE = new DemoTree.Shape(1006, 27, 268_435_456L, 1000, 21_000_000L, 6,
            20L << 20, 59L << 20);

    private static CollectSummary summary(boolean complete, Map<String, Long> bySource) {
        return new CollectSummary("t1", 268_435_456L, 9.5, 9.0, 1006, 1244, complete, complete, "fiver", bySource,
                Map.of(), Map.of(), 0, 1.0, Map.of(), null);
    }

    private static Map<String, Long> sources() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("relay:0", 400L);
        m.put("relay:1", 444L);
        m.put("relay:2", 400L);
        return m;
    }

    @Test
    void theTextSetsFspBesideTheLocalCopy() {
        DemoCommand.Figures f = new DemoCommand.Figures(SHAPE, summary(true, sources()), 10.0,
                new LocalCopy(1006, 268_435_456L, 0.5), new TreeComparison(1006, 27, 268_435_456L, List.of()), 3, "fcfs",
                false);

        String text = f.text();

        assertTrue(f.ok());
        assertTrue(text.contains("FSP          10.00 s    26.8 MB/s  fsp get via 3 relays (fcfs)"), text);
        assertTrue(text.contains("local copy    0.50 s   536.9 MB/s  Files.copy per file"), text);
        assertTrue(text.contains("1,244 of 1,244 blocks verified; sources relay:0=400 relay:1=444 relay:2=400; 0 retries"), text);
        assertTrue(text.contains("OK: all 1,006 files and 27 directories received are byte-identical"), text);
        assertTrue(text.lines().count() <= 5, text);
    }

    @Test
    void theJsonCarriesTheSameFigures() {
        DemoCommand.Figures f = new DemoCommand.Figures(SHAPE, summary(true, sources()), 10.0,
                new LocalCopy(1006, 268_435_456L, 0.5), new TreeComparison(1006, 27, 268_435_456L, List.of()), 3, "fcfs",
                true);

        String json = f.summary().toJson(f.json());

        assertTrue(json.startsWith("{\"transfer\":\"t1\""), json);
        assertTrue(json.endsWith(",\"demo\":{\"files\":1006,\"directories\":27,\"bytes\":268435456,\"small_files\":1000,"
                + "\"small_bytes\":21000000,\"large_files\":6,\"large_min_bytes\":20971520,\"large_max_bytes\":61865984,"
                + "\"fsp\":{\"seconds\":10.000,\"mb_per_s\":26.8,\"relays\":3,\"include_direct\":true,\"strategy\":\"fcfs\"},"
                + "\"local_copy\":{\"method\":\"Files.copy\",\"files\":1006,\"bytes\":268435456,\"seconds\":0.500,\"mb_per_s\":536.9},"
                + "\"blocks\":1244,\"blocks_verified\":1244,\"sources\":{\"relay:0\":400,\"relay:1\":444,\"relay:2\":400},"
                + "\"retries\":0,\"compared\":{\"files\":1006,\"directories\":27,\"bytes\":268435456,\"identical\":true,"
                + "\"differences\":[]},\"verdict\":\"OK\"}}"), json);
    }

    @Test
    void aDifferenceOrAnIncompleteTransferFails() {
        TreeComparison differs = new TreeComparison(1006, 27, 268_435_456L, List.of("src/module-00/f00005.java: missing"));
        DemoCommand.Figures different = new DemoCommand.Figures(SHAPE, summary(true, sources()), 10.0,
                new LocalCopy(1006, 268_435_456L, 0.5), differs, 3, "fcfs", false);
        DemoCommand.Figures incomplete = new DemoCommand.Figures(SHAPE, summary(false, Map.of("relay:0", 3L)), 10.0,
                new LocalCopy(1006, 268_435_456L, 0.5), new TreeComparison(1006, 27, 268_435_456L, List.of()), 3, "fcfs",
                false);

        assertFalse(different.ok());
        assertTrue(different.text().contains("FAILED: the received tree differs: [src/module-00/f00005.java: missing]"),
                different.text());
        assertTrue(different.json().endsWith("\"verdict\":\"FAILED\"}"), different.json());
        assertFalse(incomplete.ok());
        assertTrue(incomplete.text().contains("3 of 1,244 blocks verified"), incomplete.text());
        assertTrue(incomplete.text().contains("FAILED: transfer incomplete; not every block verified;"), incomplete.text());
    }

    @Test
    void theLargeFilesSizesAreRounded() {
        assertEquals("20-59 MiB", DemoCommand.range(20L << 20, 59L << 20));
        assertEquals("28 MiB", DemoCommand.range(29_130_678L, 29_130_678L));
        assertEquals("300-900 KiB", DemoCommand.range(300L << 10, 900L << 10));
    }

    @Test
    void theKnobsAreChecked() {
        FspRun run = fsp("demo", "--small-files", "-1");

        assertEquals(ExitCodes.USAGE, run.exit(), run.toString());
        assertTrue(run.err().contains("--small-files 0..100000"), run.err());
        String help = fsp("demo", "--help").out();
        for (String knob : List.of("--size-mb", "--small-files", "--relays", "--strategy", "--include-direct", "--json")) {
            assertTrue(help.contains(knob), help);
        }
    }
}
