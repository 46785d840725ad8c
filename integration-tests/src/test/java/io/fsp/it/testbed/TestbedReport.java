package io.fsp.it.testbed;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Turns the testbed's {@code results.tsv} into {@code testbed.md} (medians beside the paper's Figures 5 and 6)
 * and {@code testbed.png} (send and total goodput per scenario, as bars, like the paper's figures). Under each table a
 * line says how each column was timed: total from the wall time of the whole client process, FSP's as the peers'.
 *
 * <p>Usage: {@code TestbedReport RESULTS.tsv RATE_MBIT OUT_DIR}.
 */
public final class TestbedReport {

    /**
     * TCP goodput of a shaped Ethernet link per bit of rate: tbf counts whole frames (1514 bytes for 1448 bytes
     * of payload with TCP timestamps), so 100 Mbit/s carry at most 95.6 Mbit/s of data (the paper: 94.9).
     */
    static final double TCP_EFFICIENCY = 1448.0 / 1514.0;

    /** The paper's figures (read from its bar graphs), Mbit/s on 100 Mbit/s links: send, total. */
    static final Map<String, double[]> PAPER = Map.of(
            "direct", new double[] {86.14, 86.14},
            "relays 1-3", new double[] {264.29, 65.82},
            "relays 1-3 + direct", new double[] {264.29, 76.28},
            "relays 1-3 + direct + overlap", new double[] {252.2, 82.15},
            "relays 1-2 + direct", new double[] {261.18, 86.38},
            "relays 1-2 + direct + overlap", new double[] {261.18, 86.38},
            "relays 1-4 + cross traffic", new double[] {333.6, 69.51},
            "relays 1-4 + direct + cross traffic", new double[] {333.14, 73.4},
            "relays 1,2,4 + direct + cross traffic", new double[] {331.3, 80.35});

    /** The paper's row beside each scenario (it does not say whether IN1-2 + direct overlapped). */
    static final Map<String, String> PAPER_ROW = Map.of(
            "direct", "Direct",
            "relays 1-3", "IN1-3",
            "relays 1-3 + direct", "IN1-3 + direct",
            "relays 1-3 + direct + overlap", "IN1-3 + direct + overlapping",
            "relays 1-2 + direct", "IN1-2 + direct",
            "relays 1-2 + direct + overlap", "IN1-2 + direct",
            "relays 1-4 + cross traffic", "IN1-4",
            "relays 1-4 + direct + cross traffic", "IN1-4 + direct",
            "relays 1,2,4 + direct + cross traffic", "IN1,2,4 + direct");

    /** The data set of runs written before results had a data column. */
    static final String ONE_FILE = "one file";

    /**
     * One transfer of {@code results.tsv}.
     *
     * @param totalSeconds the wall time of the whole client process, timed by testbed.sh around it, when
     *                     {@code wholeProcess}; in results written before the FSP rows were timed so (column
     *                     {@code total_s}), fsp get's own clock for FSP and the whole process for the peers
     * @param clockSeconds fsp get's own clock (the seconds of its JSON summary), -1 for the peers and when not recorded
     */
    record Run(String scenario, long bytes, double stripedSeconds, double totalSeconds, int links, boolean identical,
               String data, double clockSeconds, boolean wholeProcess) { }

    record Row(String scenario, int runs, long bytes, double send, double total, int links, boolean identical,
               double clock, boolean wholeProcess) { }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: TestbedReport RESULTS.tsv RATE_MBIT OUT_DIR");
            System.exit(2);
        }
        List<Run> runs = read(Path.of(args[0]));
        double rate = Double.parseDouble(args[1]);
        Path out = Path.of(args[2]);
        Files.createDirectories(out);
        Map<String, List<Run>> byData = new LinkedHashMap<>();
        runs.forEach(r -> byData.computeIfAbsent(r.data(), k -> new ArrayList<>()).add(r));
        StringBuilder report = new StringBuilder();
        List<Path> plots = new ArrayList<>();
        for (Map.Entry<String, List<Run>> e : byData.entrySet()) {
            List<Row> rows = rows(e.getValue());
            if (byData.size() > 1 || !e.getKey().equals(ONE_FILE)) {
                report.append(String.format(Locale.ROOT, "%n### Data: %s (%.1f MiB)%n%n", e.getKey(),
                        rows.get(0).bytes() / 1048576.0));
            }
            report.append(markdown(rows, rate));
            Path png = out.resolve(e.getKey().equals(ONE_FILE) ? "testbed.png" : "testbed-" + e.getKey().replace(' ', '-') + ".png");
            plot(rows, rate, e.getKey(), png);
            plots.add(png);
        }
        Files.writeString(out.resolve("testbed.md"), report.toString());
        System.out.print(report);
        System.out.println();
        plots.forEach(png -> System.out.println("plot: " + png));
    }

    static List<Run> read(Path tsv) throws IOException {
        List<Run> runs = new ArrayList<>();
        boolean wholeProcess = false;
        for (String line : Files.readAllLines(tsv)) {
            String[] f = line.split("\t");
            if (f.length > 4 && f[0].equals("scenario")) {
                wholeProcess = f[4].equals("process_s");
            }
            if (f.length < 7 || f[0].equals("scenario")) {
                continue;
            }
            runs.add(new Run(f[0], Long.parseLong(f[2]), Double.parseDouble(f[3]), Double.parseDouble(f[4]),
                    Integer.parseInt(f[5]), f[6].equals("yes"), f.length > 7 ? f[7] : ONE_FILE,
                    f.length > 8 ? Double.parseDouble(f[8]) : -1, wholeProcess));
        }
        return runs;
    }

    /** Median goodputs per scenario, in the order scenarios first appear. */
    static List<Row> rows(List<Run> runs) {
        Map<String, List<Run>> by = new LinkedHashMap<>();
        runs.forEach(r -> by.computeIfAbsent(r.scenario(), k -> new ArrayList<>()).add(r));
        List<Row> rows = new ArrayList<>();
        by.forEach((name, list) -> {
            Run first = list.get(0);
            // direct only: the 226 comes once the last block is in the server's socket buffer, not at the client
            double send = first.stripedSeconds() < 0 || name.equals("direct") ? -1
                    : median(list.stream().mapToDouble(r -> mbit(r.bytes(), r.stripedSeconds())).toArray());
            double total = median(list.stream().mapToDouble(r -> mbit(r.bytes(), r.totalSeconds())).toArray());
            double clock = list.stream().anyMatch(r -> r.clockSeconds() <= 0) ? -1
                    : median(list.stream().mapToDouble(r -> mbit(r.bytes(), r.clockSeconds())).toArray());
            rows.add(new Row(name, list.size(), first.bytes(), send, total, first.links(),
                    list.stream().allMatch(Run::identical), clock, list.stream().allMatch(Run::wholeProcess)));
        });
        return rows;
    }

    static double mbit(long bytes, double seconds) {
        return bytes * 8 / 1e6 / seconds;
    }

    static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static String markdown(List<Row> rows, double rate) {
        double link = rate * TCP_EFFICIENCY;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Links %.0f Mbit/s (server %.0f Mbit/s); theoretical maximum = shaped links "
                + "× %.2f Mbit/s of TCP goodput (1448 of 1514 bytes per frame). The paper's columns: its Mbit/s on "
                + "100 Mbit/s links as published, and in brackets %% of its own maximum counted the same way.%n%n",
                rate, rate * 10, link));
        sb.append("| scenario | runs | send Mbit/s | send % of max | total Mbit/s | total % of max | total / direct "
                + "| fsp get's own clock Mbit/s | byte-identical | paper row | paper send (% of max) | paper total (% of max) |\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        double direct = rows.stream().filter(r -> r.scenario().equals("direct")).mapToDouble(Row::total).findFirst()
                .orElse(Double.NaN);
        for (Row r : rows) {
            double sendMax = r.links() * link;
            double[] paper = PAPER.get(r.scenario());
            sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %.2f | %.1f %% | %.3f× | %s | %s | %s | %s | %s |%n",
                    r.scenario(), r.runs(), r.send() < 0 ? "–" : String.format(Locale.ROOT, "%.2f", r.send()),
                    r.send() < 0 ? "–" : String.format(Locale.ROOT, "%.1f %%", 100 * r.send() / sendMax),
                    r.total(), 100 * r.total() / link, r.total() / direct,
                    r.clock() < 0 ? "–" : String.format(Locale.ROOT, "%.2f", r.clock()), r.identical() ? "yes" : "NO",
                    PAPER_ROW.getOrDefault(r.scenario(), "–"),
                    paper == null ? "–" : String.format(Locale.ROOT, "%.1f (%.1f %%)", paper[0],
                            100 * paper[0] / (r.links() * 100 * TCP_EFFICIENCY)),
                    paper == null ? "–" : String.format(Locale.ROOT, "%.1f (%.1f %%)", paper[1],
                            100 * paper[1] / (100 * TCP_EFFICIENCY))));
        }
        sb.append('\n').append(timing(rows.stream().allMatch(Row::wholeProcess))).append('\n');
        return sb.toString();
    }

    /** The line under a table that says how each of its columns was timed. */
    static String timing(boolean wholeProcess) {
        String send = "send: the striping phase only, from FRET to the server's 226 (every block placed), by fsp get's own "
                + "clock (striped_seconds of its JSON summary); not shown for direct (its 226 comes before the data is in).";
        if (!wholeProcess) {
            return "Timing: total: FSP rows by fsp get's own clock (the seconds of its JSON summary: connect to end, without "
                    + "JVM start and exit), peer rows by the wall time of their whole process (results written before the "
                    + "testbed timed fsp get whole; FSP and peer totals are not like quantities). " + send + "\n";
        }
        return "Timing: total (and total / direct): the wall time of the whole client process as typed (bin/fsp get, "
                + "globus-url-copy, curl, lftp), measured by testbed.sh around the process, JVM start, login and exit "
                + "included: the same clock for FSP and for the peers. " + send + " fsp get's own clock: the seconds of its "
                + "JSON summary (connect to end, without JVM start and exit), shown beside, used for no ratio.\n";
    }

    /** Grouped bars like the paper's figures: per scenario the send and the total goodput, ours and the paper's scaled. */
    static void plot(List<Row> rows, double rate, String data, Path png) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(1200).height(600)
                .title(String.format(Locale.ROOT, "FSP testbed, %s, %.0f Mbit/s links (paper: 100 Mbit/s, scaled)", data, rate))
                .xAxisTitle("").yAxisTitle("Goodput Mbit/s").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setSeriesColors(new Color[] {new Color(0x1f4e79), new Color(0x70ad47), new Color(0x9dc3e6),
                new Color(0xc5e0b4)});
        List<String> names = rows.stream().map(Row::scenario).toList();
        double scale = rate / 100;
        chart.addSeries("send, striping phase (ours)", names, rows.stream().map(r -> (Number) Math.max(0, r.send())).toList());
        chart.addSeries(rows.stream().allMatch(Row::wholeProcess) ? "total, whole process (ours)" : "total (ours)", names, rows.stream().map(r -> (Number) r.total()).toList());
        chart.addSeries("send (paper, scaled)", names,
                rows.stream().map(r -> (Number) (PAPER.containsKey(r.scenario()) ? PAPER.get(r.scenario())[0] * scale : 0)).toList());
        chart.addSeries("total (paper, scaled)", names,
                rows.stream().map(r -> (Number) (PAPER.containsKey(r.scenario()) ? PAPER.get(r.scenario())[1] * scale : 0)).toList());
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
