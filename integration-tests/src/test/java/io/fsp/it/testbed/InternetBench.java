package io.fsp.it.testbed;

import java.awt.Color;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * {@code bin/bench-testbed --wan}: the Internet-like testbed ({@link InternetTestbed}). A server, a client and
 * {@code 3 × --per-group} relays at PlanetLab locations ({@link InternetLocations}), every pair that matrix's RTT
 * apart on the delay line, tbf at {@code --rate} on every namespace; the relays form a Meridian overlay over UDP and
 * a server selects relays by MCQ through it. Then
 * <ol>
 * <li>(a) per query (bounds to the server and to the client), one {@code fsp get} from that server: the relays it
 *     chose, their RTTs to both ends measured with ping, and whether they satisfy the bounds;</li>
 * <li>(b) the same file fetched with {@code --wanted} relays chosen by MCQ, chosen at random (a server per round
 *     with that static list) and from a static list (one relay of each group), interleaved in {@code --rounds}
 *     rounds; each {@code fsp get} timed from outside: "total" is the whole process, "send" fsp get's own
 *     striped_seconds (FRET until the server had placed every block, the relay selection included); medians.
 *     Beside them on the same links ({@code --peers yes}): curl from vsftpd and globus-url-copy -p 4 from GridFTP,
 *     both in the server's namespace, timed the same way.</li>
 * </ol>
 *
 * <p>Arguments: {@code [--per-group 4] [--near-ms 40] [--min-ms 150] [--max-ms 250] [--seed 1] [--rate 100]
 * [--end-rate MBIT] [--queue-ms 50] [--size-mib 64] [--rounds 5] [--wanted 3] [--pings 10] [--overlay-wait 180]
 * [--peers yes|no] [--home DIR] [--out DIR]}. {@code --rate} shapes every relay, {@code --end-rate} the server and the client
 * (default: {@code --rate}).
 */
public final class InternetBench {
    private static final Pattern STRIPED = Pattern.compile("\"striped_seconds\":(-?[0-9.]+)");
    private static final Pattern SOURCES = Pattern.compile("\"blocks_by_source\":\\{([^}]*)\\}");
    private static final int SELECTING = 2121;
    private static final int STATIC = 2122;
    private static final int RANDOM = 2130;
    private static final int VSFTPD = 2100;
    private static final int GRIDFTP = 2811;
    private static final String CURL = "vsftpd + curl";
    private static final String GRIDFTP_P4 = "GridFTP -p 4";

    private InternetBench() {
    }

    /** One query of part (a): a name and the bounds, in ms. */
    private record Query(String name, double nearSenderMs, double nearClientMs) {
    }

    /** One timed run of part (b). */
    private record Timed(int round, String variant, List<Integer> relays, double sendS, double totalS, boolean identical,
                         String sources, String satisfied) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new LinkedHashMap<>(Map.ofEntries(Map.entry("--per-group", "4"),
                Map.entry("--near-ms", "40"), Map.entry("--min-ms", "150"), Map.entry("--max-ms", "250"),
                Map.entry("--seed", "1"), Map.entry("--rate", "100"), Map.entry("--end-rate", ""),
                Map.entry("--queue-ms", "50"),
                Map.entry("--size-mib", "64"), Map.entry("--rounds", "5"), Map.entry("--wanted", "3"),
                Map.entry("--pings", "10"), Map.entry("--overlay-wait", "180"), Map.entry("--peers", "yes"),
                Map.entry("--home", Path.of("..").toAbsolutePath().normalize().toString()),
                Map.entry("--out", Path.of("target", "testbed-wan").toAbsolutePath().toString())));
        for (int i = 0; i < args.length; i += 2) {
            if (!o.containsKey(args[i]) || i + 1 >= args.length) {
                usage(o.containsKey(args[i]) ? "missing value for " + args[i] : "unknown option " + args[i]);
            }
            o.put(args[i], args[i + 1]);
        }
        String missing = DelayLine.missingRequirement();
        if (missing != null) {
            System.err.println("bench-testbed --wan: " + missing);
            System.exit(2);
        }
        int perGroup = Integer.parseInt(o.get("--per-group"));
        double nearMs = Double.parseDouble(o.get("--near-ms"));
        long seed = Long.parseLong(o.get("--seed"));
        double rate = Double.parseDouble(o.get("--rate"));
        double endRate = o.get("--end-rate").isEmpty() ? rate : Double.parseDouble(o.get("--end-rate"));
        long bytes = Long.parseLong(o.get("--size-mib")) << 20;
        int rounds = Integer.parseInt(o.get("--rounds"));
        int wanted = Integer.parseInt(o.get("--wanted"));
        int pings = Integer.parseInt(o.get("--pings"));
        boolean peers = o.get("--peers").equals("yes");
        Path out = Path.of(o.get("--out"));
        InternetLocations at = InternetLocations.planetLab(perGroup, nearMs, Double.parseDouble(o.get("--min-ms")),
                Double.parseDouble(o.get("--max-ms")), seed);
        double r = at.serverClientMs();
        List<Query> queries = List.of(new Query("near the server", nearMs, Math.round(1.5 * r)),
                new Query("near the client", Math.round(1.5 * r), nearMs),
                new Query("tight, near the server", nearMs / 2, Math.round(1.5 * r)),
                new Query("within 1.2 x RTT of both", Math.round(1.2 * r), Math.round(1.2 * r)));
        Query compared = queries.get(0);
        String startLoad = load();
        System.out.printf(Locale.ROOT, "# Internet-like testbed: server, client and %d relays on the delay line at"
                + " PlanetLab locations, tbf %.0f Mbit/s on every relay and %.0f Mbit/s on the server and the client"
                + " (queue %s ms), the namespaces' own TCP limits (Linux defaults); relays in a Meridian overlay over"
                + " UDP; launchers of %s%n# machine: %d cores, load average at start %s%n%n", 3 * perGroup, rate,
                endRate, o.get("--queue-ms"), o.get("--home"),
                Runtime.getRuntime().availableProcessors(), startLoad);
        Path work = Files.createTempDirectory("bench-inet");
        String classPath = System.getProperty("java.class.path");
        long started = System.nanoTime();
        try (InternetTestbed testbed = InternetTestbed.start(WanRig.Programs.launchers(Path.of(o.get("--home"))),
                classPath, work, at, rate, Double.parseDouble(o.get("--queue-ms")), null, null)) {
            WanRig rig = testbed.rig;
            if (endRate != rate) {
                rig.line.shape(WanRig.SERVER, endRate, Double.parseDouble(o.get("--queue-ms")));
                rig.line.shape(WanRig.CLIENT, endRate, Double.parseDouble(o.get("--queue-ms")));
            }
            Path source = rig.dataFile("big.bin", bytes);
            Path small = rig.dataFile("small.bin", 4L << 20);
            testbed.startSelectingServer(SELECTING);
            List<Integer> fixed = new ArrayList<>();
            for (int i = 0; fixed.size() < wanted; i++) {
                fixed.add((i % 3) * perGroup + i / 3); // one of each group in turn
            }
            rig.startServer(STATIC, fixed);
            List<List<Integer>> randoms = new ArrayList<>();
            SplittableRandom random = new SplittableRandom(seed);
            for (int round = 0; round < rounds; round++) {
                List<Integer> all = new ArrayList<>();
                for (int i = 0; i < rig.relays(); i++) {
                    all.add(i);
                }
                List<Integer> pick = new ArrayList<>();
                while (pick.size() < wanted) {
                    pick.add(all.remove(random.nextInt(all.size())));
                }
                randoms.add(pick);
                rig.startServer(RANDOM + round, pick);
            }
            InternetTestbed.Overlay overlay = testbed.awaitOverlay(Long.parseLong(o.get("--overlay-wait")));
            double readyS = (System.nanoTime() - started) / 1e9;
            double[][] rtts = testbed.pingRtts(pings);
            double srvCli = testbed.pingServerClient(pings);
            locations(testbed, rtts, srvCli, pings, nearMs, o.get("--min-ms"), o.get("--max-ms"));
            System.out.printf(Locale.ROOT, "%nOverlay: every relay's rings hold %s of the %d others%s, %.0f s after"
                    + " the relays started (testbed ready %.0f s after start; %d servers started meanwhile).%n",
                    overlay.complete() ? "all" : "at least " + overlay.least(), rig.relays() - 1,
                    overlay.complete() ? "" : " " + Arrays.toString(overlay.known()), overlay.seconds(), readyS,
                    2 + rounds);
            System.out.println(ringAccuracy(testbed, overlay));

            // (a) the constraints of what MCQ picks, checked with ping
            System.out.printf(Locale.ROOT, "%n## (a) Relays chosen by MCQ against RTTs measured with ping%n%n"
                    + "Each query is one `fsp get --relays %d --near-sender S --near-client C` of 4 MiB from a server"
                    + " with no static relay (`--meridian-entry` r1, `--trust-relay` for every relay). \"Satisfying\": the"
                    + " relays within both bounds by ping (median of %d), i.e. what a perfect answer could hold.%n%n",
                    wanted, pings);
            System.out.println("| query | near-sender ms | near-client ms | satisfying (ping) | chosen | from overlay "
                    + "| found | RTT to server / client ms (ping) | bounds held | identical | note |");
            System.out.println("|---|---:|---:|---|---|---:|---|---|---|---|---|");
            Path dest = work.resolve("received.bin");
            int asked = 0;
            int held = 0;
            int found = 0;
            int possible = 0;
            for (Query q : queries) {
                List<Integer> satisfying = new ArrayList<>();
                for (int i = 0; i < rig.relays(); i++) {
                    if (rtts[i][0] <= q.nearSenderMs && rtts[i][1] <= q.nearClientMs) {
                        satisfying.add(i);
                    }
                }
                if (satisfying.isEmpty()) {
                    System.out.printf(Locale.ROOT, "| %s | %s | %s | none | – | – | – | – | – | – | not asked: no relay"
                            + " to find |%n", q.name, ms(q.nearSenderMs), ms(q.nearClientMs));
                    continue;
                }
                int logAt = rig.serverLog(SELECTING).length();
                rig.get(SELECTING, "small.bin", dest, mcqOptions(q, wanted));
                boolean identical = Files.mismatch(small, dest) == -1;
                List<InternetTestbed.Choice> choices = testbed.choices(rig.serverLog(SELECTING).substring(logAt));
                if (choices.isEmpty()) {
                    System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | no selection logged | – | – | – | – | %s | |%n",
                            q.name, ms(q.nearSenderMs), ms(q.nearClientMs), names(testbed, satisfying),
                            identical ? "yes" : "NO");
                    continue;
                }
                InternetTestbed.Choice c = choices.get(0);
                boolean ok = c.satisfied(rtts);
                asked++;
                held += ok ? 1 : 0;
                found += c.relays().size();
                possible += Math.min(wanted, satisfying.size());
                System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %d | %d of %d | %s | %s | %s | %s |%n",
                        q.name, ms(q.nearSenderMs), ms(q.nearClientMs), names(testbed, satisfying),
                        names(testbed, c.relays()), c.fromOverlay(), c.relays().size(),
                        Math.min(wanted, satisfying.size()), c.relays().isEmpty() ? "–"
                        : relayRtts(testbed, c.relays(), rtts), c.relays().isEmpty() ? "–" : ok ? "yes" : "NO",
                        identical ? "yes" : "NO", c.note());
            }

            // (b) send and total with MCQ-chosen, random and static relays, and the peers straight from the server
            List<String> variants = new ArrayList<>(List.of("mcq", "random", "static"));
            if (peers) {
                rig.startVsftpd(VSFTPD);
                rig.startGridftp(GRIDFTP);
                variants.addAll(List.of(CURL, GRIDFTP_P4));
            }
            for (String variant : variants) { // warm-up, not counted: the JVM's CDS archive, relay connections
                fetch(rig, variant, 0, "small.bin", dest, compared, wanted);
            }
            List<Timed> runs = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < variants.size(); k++) {
                    String variant = variants.get((round + k) % variants.size());
                    int port = port(variant, round);
                    int logAt = variant.startsWith("vsftpd") || variant.startsWith("GridFTP") ? 0
                            : rig.serverLog(port).length();
                    WanRig.Run run = fetch(rig, variant, round, "big.bin", dest, compared, wanted);
                    boolean identical = Files.mismatch(source, dest) == -1;
                    Matcher m = STRIPED.matcher(run.output());
                    double send = m.find() ? Double.parseDouble(m.group(1)) : -1;
                    Matcher s = SOURCES.matcher(run.output());
                    String sources = s.find() ? s.group(1).replace("\"", "") : "–";
                    List<Integer> relays = variant.equals("static") ? fixed : variant.equals("random")
                            ? randoms.get(round) : List.of();
                    String satisfied = "";
                    if (variant.equals("mcq")) {
                        List<InternetTestbed.Choice> choices = testbed.choices(rig.serverLog(port).substring(logAt));
                        relays = choices.isEmpty() ? List.of() : choices.get(0).relays();
                        satisfied = choices.isEmpty() ? "?" : choices.get(0).satisfied(rtts) ? "yes" : "NO";
                    }
                    runs.add(new Timed(round + 1, variant, relays, send, run.wallSeconds(), identical, sources,
                            satisfied));
                }
            }
            System.out.printf(Locale.ROOT, "%n## (b) Send and total: MCQ-chosen vs random vs static relays%s%n%n%d MiB,"
                    + " %d relays per transfer, %d rounds, the variants interleaved (order rotated each round), after one"
                    + " untimed warm-up get per server. MCQ: query \"%s\" (near-sender %s ms, near-client %s ms);"
                    + " random: %d relays drawn per round (a server with that static list each); static: %s (one per"
                    + " group). total: wall time of the whole `fsp get` process (/usr/bin/time); send: its JSON"
                    + " striped_seconds (FRET until the server had placed every block; MCQ's selection included).%s%n%n",
                    peers ? ", beside vsftpd and GridFTP" : "", bytes >> 20, wanted, rounds, compared.name,
                    ms(compared.nearSenderMs), ms(compared.nearClientMs), wanted, names(testbed, fixed), peers
                    ? " Beside them, straight from the server's namespace over the same links: curl from vsftpd"
                    + " (plain FTP, sendfile) and globus-url-copy -p 4 from an anonymous GridFTP server, timed the"
                    + " same way (no send phase: \"–\")." : "");
            System.out.println("| variant | runs | send median s | send min–max s | total median s | total min–max s"
                    + " | goodput (total) Mbit/s | relays (per run) | MCQ bounds held | identical |");
            System.out.println("|---|---:|---:|---|---:|---|---:|---|---|---|");
            Map<String, double[]> medians = new LinkedHashMap<>();
            for (String variant : variants) {
                List<Timed> v = runs.stream().filter(t -> t.variant.equals(variant)).toList();
                double[] send = v.stream().mapToDouble(Timed::sendS).sorted().toArray();
                double[] total = v.stream().mapToDouble(Timed::totalS).sorted().toArray();
                boolean striped = send[0] >= 0;
                double sendMedian = TestbedReport.median(send);
                double totalMedian = TestbedReport.median(total);
                medians.put(variant, new double[] {striped ? sendMedian : 0, totalMedian});
                System.out.printf(Locale.ROOT, "| %s | %d | %s | %s | %.2f | %.2f–%.2f | %.1f | %s | %s | %s |%n",
                        variant, v.size(), striped ? String.format(Locale.ROOT, "%.2f", sendMedian) : "–",
                        striped ? String.format(Locale.ROOT, "%.2f–%.2f", send[0], send[send.length - 1]) : "–",
                        totalMedian, total[0], total[total.length - 1], TestbedReport.mbit(bytes, totalMedian),
                        striped ? String.join("; ", v.stream().map(t -> names(testbed, t.relays)).toList())
                        : "direct from the server",
                        variant.equals("mcq") ? v.stream().filter(t -> t.satisfied.equals("yes")).count() + " of "
                                + v.size() : "–", v.stream().allMatch(Timed::identical) ? "all" : "NO");
            }
            System.out.println("\n<details><summary>every run</summary>\n");
            System.out.println("| round | variant | relays | send s | total s | blocks by source | identical |");
            System.out.println("|---:|---|---|---:|---:|---|---|");
            for (Timed t : runs) {
                System.out.printf(Locale.ROOT, "| %d | %s | %s | %s | %.2f | %s | %s |%n", t.round, t.variant,
                        t.relays.isEmpty() && t.sendS < 0 ? "direct" : names(testbed, t.relays), t.sendS < 0 ? "–"
                        : String.format(Locale.ROOT, "%.2f", t.sendS), t.totalS, t.sources, t.identical ? "yes" : "NO");
            }
            System.out.printf(Locale.ROOT, "%n</details>%n%nMCQ queries in (a): %d of %d held their bounds by ping;"
                    + " they found %d of the %d relays a perfect answer would hold. Load average at the end: %s;"
                    + " forwarder: %s%n", held, asked, found, possible, load(),
                    rig.line.forwarderStats().strip().replace('\n', ' '));
            Files.createDirectories(out);
            Path png = out.resolve("testbed-wan.png");
            plot(medians, bytes, png);
            System.out.println("Plot: " + png);
        } finally {
            Testbed.deleteTree(work);
        }
    }

    private static void locations(InternetTestbed testbed, double[][] rtts, double srvCli, int pings, double nearMs,
                                  String minMs, String maxMs) {
        InternetLocations at = testbed.at;
        int[] loc = at.locations();
        double[][] m = at.rttMs();
        System.out.printf(Locale.ROOT, "Locations in %s, chosen by rule (InternetLocations): the server and client are"
                + " the pair %s–%s ms apart with the most relay candidates near each (within %s ms of one end and at"
                + " least 0.8 × their RTT from the other); then the %d candidates nearest the server, the %d nearest"
                + " the client, and %d drawn at random from the locations more than %s ms from both.%n%n",
                at.matrix().name(), minMs, maxMs, ms(nearMs), at.perGroup(), at.perGroup(), at.perGroup(), ms(nearMs));
        System.out.println("| node | location | group | RTT to server ms (matrix / ping) | RTT to client ms (matrix / ping) |");
        System.out.println("|---|---:|---|---|---|");
        System.out.printf(Locale.ROOT, "| srv | %d | server | – | %.0f / %.1f |%n", loc[0], m[0][1], srvCli);
        System.out.printf(Locale.ROOT, "| cli | %d | client | %.0f / %.1f | – |%n", loc[1], m[1][0], srvCli);
        for (int r = 0; r < rtts.length; r++) {
            System.out.printf(Locale.ROOT, "| %s | %d | %s | %.0f / %.1f | %.0f / %.1f |%n", testbed.name(r), loc[2 + r],
                    at.group(r), m[2 + r][0], rtts[r][0], m[2 + r][1], rtts[r][1]);
        }
        System.out.printf(Locale.ROOT, "%nPing: median of %d, 0.2 s apart, from each relay's namespace.%n", pings);
    }

    /** How close the RTTs the relays measured to their ring members come to the matrix (the delay line's). */
    static String ringAccuracy(InternetTestbed testbed, InternetTestbed.Overlay overlay) {
        double[][] m = testbed.at.rttMs();
        List<Double> errors = new ArrayList<>();
        String worst = "";
        double worstError = -1;
        for (int i = 0; i < overlay.measuredMs().length; i++) {
            for (int j = 0; j < overlay.measuredMs().length; j++) {
                double got = overlay.measuredMs()[i][j];
                if (!Double.isNaN(got)) {
                    double want = m[WanRig.FIRST_RELAY + i][WanRig.FIRST_RELAY + j];
                    double error = Math.abs(got - want) / want * 100;
                    errors.add(error);
                    if (error > worstError) {
                        worstError = error;
                        worst = String.format(Locale.ROOT, "%s→%s %.1f ms for %.0f", testbed.name(i), testbed.name(j),
                                got, want);
                    }
                }
            }
        }
        if (errors.isEmpty()) {
            return "Ring RTTs: none reported.";
        }
        double[] sorted = errors.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        long within = errors.stream().filter(e -> e <= 10).count();
        return String.format(Locale.ROOT, "Ring RTTs the relays measured themselves (smoothed probes, %d member"
                + " entries) against the matrix: median error %.1f %%, %d within 10 %%, worst %s.", sorted.length,
                TestbedReport.median(sorted), within, worst);
    }

    private static String[] mcqOptions(Query q, int wanted) {
        return new String[] {"--relays", Integer.toString(wanted), "--near-sender", ms(q.nearSenderMs), "--near-client",
                ms(q.nearClientMs)};
    }

    private static int port(String variant, int round) {
        return switch (variant) {
            case "mcq" -> SELECTING;
            case "static" -> STATIC;
            case CURL -> VSFTPD;
            case GRIDFTP_P4 -> GRIDFTP;
            default -> RANDOM + round;
        };
    }

    /** One timed fetch of {@code remote} by the variant's client from its server. */
    private static WanRig.Run fetch(WanRig rig, String variant, int round, String remote, Path dest, Query mcq,
                                    int wanted) throws java.io.IOException, InterruptedException {
        return switch (variant) {
            case CURL -> rig.curlAnonymous(VSFTPD, remote, dest);
            case GRIDFTP_P4 -> rig.globusUrlCopy(GRIDFTP, 4, remote, dest);
            case "mcq" -> rig.get(SELECTING, remote, dest, mcqOptions(mcq, wanted));
            default -> rig.get(port(variant, round), remote, dest);
        };
    }

    private static String names(InternetTestbed testbed, List<Integer> relays) {
        return relays.isEmpty() ? "none" : String.join(",", relays.stream().map(testbed::name).toList());
    }

    private static String relayRtts(InternetTestbed testbed, List<Integer> relays, double[][] rtts) {
        return String.join(", ", relays.stream().map(r -> String.format(Locale.ROOT, "%s %.1f / %.1f",
                testbed.name(r), rtts[r][0], rtts[r][1])).toList());
    }

    private static String ms(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static void plot(Map<String, double[]> medians, long bytes, Path png) throws java.io.IOException {
        CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
                .title(String.format(Locale.ROOT, "Internet-like testbed: %d MiB, median seconds", bytes >> 20))
                .xAxisTitle("").yAxisTitle("seconds").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setSeriesColors(new Color[] {new Color(0x1f4e79), new Color(0x70ad47)});
        List<String> names = new ArrayList<>(medians.keySet());
        chart.addSeries("send (striped_seconds)", names, names.stream().map(n -> (Number) medians.get(n)[0]).toList());
        chart.addSeries("total (whole process)", names, names.stream().map(n -> (Number) medians.get(n)[1]).toList());
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static void usage(String problem) {
        System.err.println("bench-testbed --wan: " + problem + "\nusage: bin/bench-testbed --wan [--per-group 4]"
                + " [--near-ms 40] [--min-ms 150] [--max-ms 250] [--seed 1] [--rate 100] [--end-rate MBIT] [--queue-ms 50]"
                + " [--size-mib 64] [--rounds 5] [--wanted 3] [--pings 10] [--overlay-wait 180] [--peers yes|no] [--home DIR]"
                + " [--out DIR]");
        System.exit(2);
    }
}
