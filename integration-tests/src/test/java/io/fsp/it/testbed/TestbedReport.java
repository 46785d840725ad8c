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
 * Results that say how each FSP command met the resident client agent (column {@code agent}: cold, warm, in-process)
 * have one row per scenario and mode, CPU columns (client, agent, machine) and the targets judged on the warm rows.
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

    /** Issue 42's targets on this testbed, judged on the warm rows: striping (send) of relays 1-3 in % of the links. */
    static final double STRIPING_TARGET = 97;
    /** ... and total of the client in striping + overlap per the best direct FTPS transfer's total. */
    static final double TOTAL_TARGET = 0.98;
    static final String STRIPING_ROW = "relays 1-3";
    static final List<String> OVERLAP_ROWS = List.of("relays 1-2 + direct + overlap", "relays 1-3 + direct + overlap");
    /** The direct FTPS transfers: FSP's own (direct only) and curl's from fsp-server. */
    static final List<String> DIRECT_FTPS_ROWS = List.of("direct", "fsp-server + curl FTPS");
    static final String WARM = "warm";

    /**
     * One transfer of {@code results.tsv}.
     *
     * @param totalSeconds the wall time of the whole client process, timed by testbed.sh around it, when
     *                     {@code wholeProcess}; in results written before the FSP rows were timed so (column
     *                     {@code total_s}), fsp get's own clock for FSP and the whole process for the peers
     * @param clockSeconds fsp get's own clock (the seconds of its JSON summary), -1 for the peers and when not recorded
     * @param agent        how the FSP command met the client agent (cold, warm, in-process); "" for the peers and in
     *                     results written before the agent
     * @param clientCpu    CPU seconds of the client process, -1 when not recorded
     * @param agentCpu     CPU seconds of the agent the command used (for a cold run the one it started), -1 when none
     * @param agentRss     the agent's peak RSS in MiB, -1 when none
     * @param machineCpu   CPU seconds of the whole machine during the run, -1 when not recorded
     */
    record Run(String scenario, long bytes, double stripedSeconds, double totalSeconds, int links, boolean identical,
               String data, double clockSeconds, boolean wholeProcess, String agent, double clientCpu, double agentCpu,
               double agentRss, double machineCpu) {
        Run(String scenario, long bytes, double stripedSeconds, double totalSeconds, int links, boolean identical,
            String data, double clockSeconds, boolean wholeProcess) {
            this(scenario, bytes, stripedSeconds, totalSeconds, links, identical, data, clockSeconds, wholeProcess, "",
                    -1, -1, -1, -1);
        }
    }

    /** Medians of one scenario in one agent mode ("" for the peers); CPU figures -1 when not recorded. */
    record Row(String scenario, int runs, long bytes, double send, double total, int links, boolean identical,
               double clock, boolean wholeProcess, String agent, double clientCpu, double agentCpu, double agentRss,
               double machineCpu) {
        /** The name in the table: the scenario, and its agent mode in brackets. */
        String name() {
            return agent.isEmpty() ? scenario : scenario + " (" + agent + ")";
        }
    }

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
            report.append(targets(rows, rate));
            Path png = out.resolve(e.getKey().equals(ONE_FILE) ? "testbed.png"
                    : "testbed-" + e.getKey().replaceAll("[^A-Za-z0-9.]+", "-") + ".png");
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
                    f.length > 8 ? Double.parseDouble(f[8]) : -1, wholeProcess,
                    f.length > 9 && !f[9].equals("-") ? f[9] : "", figure(f, 10), figure(f, 11), figure(f, 12),
                    figure(f, 13)));
        }
        return runs;
    }

    /** Field {@code i} of a results line as a number; -1 for "-" (does not apply) and when the line has none. */
    static double figure(String[] f, int i) {
        return f.length > i && !f[i].equals("-") ? Double.parseDouble(f[i]) : -1;
    }

    /** Median goodputs per scenario and agent mode, in the order they first appear. */
    static List<Row> rows(List<Run> runs) {
        Map<List<String>, List<Run>> by = new LinkedHashMap<>();
        runs.forEach(r -> by.computeIfAbsent(List.of(r.scenario(), r.agent()), k -> new ArrayList<>()).add(r));
        List<Row> rows = new ArrayList<>();
        by.forEach((key, list) -> {
            String name = key.get(0);
            Run first = list.get(0);
            // direct only: the 226 comes once the last block is in the server's socket buffer, not at the client
            double send = first.stripedSeconds() < 0 || name.equals("direct") ? -1
                    : median(list.stream().mapToDouble(r -> mbit(r.bytes(), r.stripedSeconds())).toArray());
            double total = median(list.stream().mapToDouble(r -> mbit(r.bytes(), r.totalSeconds())).toArray());
            double clock = list.stream().anyMatch(r -> r.clockSeconds() <= 0) ? -1
                    : median(list.stream().mapToDouble(r -> mbit(r.bytes(), r.clockSeconds())).toArray());
            rows.add(new Row(name, list.size(), first.bytes(), send, total, first.links(),
                    list.stream().allMatch(Run::identical), clock, list.stream().allMatch(Run::wholeProcess), key.get(1),
                    medianOf(list, Run::clientCpu), medianOf(list, Run::agentCpu), medianOf(list, Run::agentRss),
                    medianOf(list, Run::machineCpu)));
        });
        return rows;
    }

    /** The median of a figure over runs, -1 unless every run recorded it. */
    static double medianOf(List<Run> runs, java.util.function.ToDoubleFunction<Run> figure) {
        double[] v = runs.stream().mapToDouble(figure).toArray();
        return java.util.Arrays.stream(v).anyMatch(x -> x < 0) ? -1 : median(v);
    }

    /** The direct row a row's total is compared with: FSP's direct of the same agent mode (for a peer: the warm one). */
    static double direct(List<Row> rows, Row row) {
        String mode = row.agent().isEmpty() ? WARM : row.agent();
        return rows.stream().filter(r -> r.scenario().equals("direct")).sorted(
                java.util.Comparator.comparing((Row r) -> !r.agent().equals(mode))).mapToDouble(Row::total)
                .findFirst().orElse(Double.NaN);
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
        boolean cpu = rows.stream().anyMatch(r -> r.machineCpu() >= 0);
        sb.append("| scenario | runs | send Mbit/s | send % of max | total Mbit/s | total % of max | total / direct "
                + "| fsp get's own clock Mbit/s | byte-identical | paper row | paper send (% of max) | paper total (% of max) |"
                + (cpu ? " client CPU s | agent CPU s | agent peak RSS MiB | machine CPU s/GiB |" : "") + "\n");
        sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|" + (cpu ? "---|---|---|---|" : "") + "\n");
        for (Row r : rows) {
            double sendMax = r.links() * link;
            double[] paper = PAPER.get(r.scenario());
            sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %.2f | %.1f %% | %.3f× | %s | %s | %s | %s | %s |",
                    r.name(), r.runs(), r.send() < 0 ? "–" : String.format(Locale.ROOT, "%.2f", r.send()),
                    r.send() < 0 ? "–" : String.format(Locale.ROOT, "%.1f %%", 100 * r.send() / sendMax),
                    r.total(), 100 * r.total() / link, r.total() / direct(rows, r),
                    r.clock() < 0 ? "–" : String.format(Locale.ROOT, "%.2f", r.clock()), r.identical() ? "yes" : "NO",
                    PAPER_ROW.getOrDefault(r.scenario(), "–"),
                    paper == null ? "–" : String.format(Locale.ROOT, "%.1f (%.1f %%)", paper[0],
                            100 * paper[0] / (r.links() * 100 * TCP_EFFICIENCY)),
                    paper == null ? "–" : String.format(Locale.ROOT, "%.1f (%.1f %%)", paper[1],
                            100 * paper[1] / (100 * TCP_EFFICIENCY))));
            if (cpu) {
                sb.append(String.format(Locale.ROOT, " %s | %s | %s | %s |", seconds(r.clientCpu()), seconds(r.agentCpu()),
                        r.agentRss() < 0 ? "–" : String.format(Locale.ROOT, "%.0f", r.agentRss()),
                        r.machineCpu() < 0 ? "–" : String.format(Locale.ROOT, "%.2f", r.machineCpu() / (r.bytes() / 1073741824.0))));
            }
            sb.append('\n');
        }
        sb.append('\n').append(timing(rows.stream().allMatch(Row::wholeProcess))).append('\n');
        if (cpu) {
            sb.append(AGENT).append('\n');
        }
        return sb.toString();
    }

    static final String AGENT = "Agent: each FSP row once per way the command met the resident client agent: cold (`fsp "
            + "agent stop` before it: the command starts the agent and pays for it), warm (the agent already running, "
            + "started once with `fsp agent start`), in-process (FSP_AGENT=off); total / direct against the direct row of "
            + "the same mode (a peer's against the warm one). CPU (medians): client: the client process; agent: the agent "
            + "the command used (warm: the running agent, counted in a cgroup of its own; cold: the one it started), and "
            + "its peak RSS; machine: every core's busy time during the run, whoever spent it, per GiB moved.\n";

    private static String seconds(double s) {
        return s < 0 ? "–" : String.format(Locale.ROOT, "%.2f", s);
    }

    /**
     * Issue 42's targets for this testbed, on the warm rows (the cold ones beside): striping of relays 1-3 at least
     * 97 % of the links, and the best total of the client in striping + overlap at least 0.98 of the best direct FTPS
     * transfer's (FSP's own direct, curl FTPS from fsp-server). Empty when the rows are not there.
     */
    static String targets(List<Row> rows, double rate) {
        double link = rate * TCP_EFFICIENCY;
        StringBuilder sb = new StringBuilder();
        for (String mode : List.of(WARM, "cold")) {
            java.util.Optional<Row> striping = rows.stream()
                    .filter(r -> r.scenario().equals(STRIPING_ROW) && r.agent().equals(mode)).findFirst();
            java.util.Optional<Row> overlap = rows.stream()
                    .filter(r -> OVERLAP_ROWS.contains(r.scenario()) && r.agent().equals(mode))
                    .max(java.util.Comparator.comparingDouble(Row::total));
            java.util.Optional<Row> direct = rows.stream().filter(r -> DIRECT_FTPS_ROWS.contains(r.scenario())
                    && (r.agent().equals(mode) || r.agent().isEmpty())).max(java.util.Comparator.comparingDouble(Row::total));
            String what = mode.equals(WARM) ? "**Targets** (issue 42, judged on the warm rows)" : "Cold, beside them";
            List<String> verdicts = new ArrayList<>();
            striping.filter(r -> r.send() > 0).ifPresent(r -> {
                double pct = 100 * r.send() / (r.links() * link);
                verdicts.add(String.format(Locale.ROOT, "striping (%s) %.1f %% of the links%s", r.name(), pct,
                        mode.equals(WARM) ? String.format(Locale.ROOT, " (target ≥ %.0f %%: %s)", STRIPING_TARGET,
                                pct >= STRIPING_TARGET ? "met" : "NOT met") : ""));
            });
            if (overlap.isPresent() && direct.isPresent()) {
                double ratio = overlap.get().total() / direct.get().total();
                verdicts.add(String.format(Locale.ROOT, "total (%s) %.3f× the best direct FTPS transfer (%s, %.2f Mbit/s)%s",
                        overlap.get().name(), ratio, direct.get().name(), direct.get().total(),
                        mode.equals(WARM) ? String.format(Locale.ROOT, " (target ≥ %.2f×: %s)", TOTAL_TARGET,
                                ratio >= TOTAL_TARGET ? "met" : "NOT met") : ""));
            }
            if (!verdicts.isEmpty()) {
                sb.append(what).append(": ").append(String.join("; ", verdicts)).append(".\n\n");
            }
        }
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
        List<String> names = rows.stream().map(Row::name).toList();
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
