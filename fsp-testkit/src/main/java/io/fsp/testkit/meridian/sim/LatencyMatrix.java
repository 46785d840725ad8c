package io.fsp.testkit.meridian.sim;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;

/**
 * A symmetric matrix of RTTs in milliseconds between n locations; a negative entry means unknown.
 * Loaded matrices are made symmetric by averaging both directions where both are known.
 */
public final class LatencyMatrix {
    /** Refuse absurd files before allocating n² doubles. */
    public static final int MAX_NODES = 20_000;

    private final double[][] rtt;
    private final String name;

    public LatencyMatrix(String name, double[][] rtt) {
        this.name = name;
        this.rtt = rtt;
    }

    public String name() {
        return name;
    }

    public int size() {
        return rtt.length;
    }

    /** RTT between i and j in ms, negative if unknown. */
    public double rtt(int i, int j) {
        return rtt[i][j];
    }

    /**
     * Reads a square matrix, one row per line, whitespace-separated, gzip-compressed if the name ends
     * in {@code .gz}.
     */
    public static LatencyMatrix load(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            List<double[]> rows = new ArrayList<>();
            String line;
            int lineNo = 0;
            while ((line = reader.readLine()) != null) {
                lineNo++;
                String trimmed = line.trim();
                if (trimmed.isEmpty()) {
                    continue;
                }
                String[] cells = trimmed.split("\\s+");
                if (cells.length > MAX_NODES) {
                    throw new IOException(file + ":" + lineNo + ": columns: " + cells.length + " (expected: <= " + MAX_NODES + ")");
                }
                if (!rows.isEmpty() && cells.length != rows.get(0).length) {
                    throw new IOException(file + ":" + lineNo + ": columns: " + cells.length + " (expected: " + rows.get(0).length + ")");
                }
                double[] row = new double[cells.length];
                for (int j = 0; j < cells.length; j++) {
                    try {
                        row[j] = Double.parseDouble(cells[j]);
                    } catch (NumberFormatException e) {
                        throw new IOException(file + ":" + lineNo + ": column " + (j + 1) + ": not a number: " + cells[j]);
                    }
                    if (Double.isNaN(row[j]) || Double.isInfinite(row[j])) {
                        throw new IOException(file + ":" + lineNo + ": column " + (j + 1) + ": not finite: " + cells[j]);
                    }
                }
                rows.add(row);
                if (rows.size() > row.length) {
                    throw new IOException(file + ":" + lineNo + ": rows: " + rows.size() + " (expected: " + row.length + ", a square matrix)");
                }
            }
            if (rows.isEmpty() || rows.size() != rows.get(0).length) {
                throw new IOException(file + ": rows: " + rows.size() + " (expected: "
                        + (rows.isEmpty() ? ">= 1" : rows.get(0).length + ", a square matrix") + ")");
            }
            String name = file.getFileName().toString().replaceFirst("\\.gz$", "").replaceFirst("\\.txt$", "");
            return new LatencyMatrix(name, symmetric(rows.toArray(new double[0][])));
        }
    }

    private static double[][] symmetric(double[][] m) {
        int n = m.length;
        double[][] out = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                double a = m[i][j];
                double b = m[j][i];
                out[i][j] = i == j ? 0 : a < 0 ? b : b < 0 ? a : (a + b) / 2;
            }
        }
        return out;
    }

    /** The sub-matrix of the given locations, in that order. */
    public LatencyMatrix subset(int[] nodes) {
        double[][] out = new double[nodes.length][nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            for (int j = 0; j < nodes.length; j++) {
                out[i][j] = rtt[nodes[i]][nodes[j]];
            }
        }
        return new LatencyMatrix(name + "[" + nodes.length + "]", out);
    }

    /** A random subset of {@code n} locations. */
    public LatencyMatrix sample(int n, Random random) {
        if (n >= size()) {
            return this;
        }
        int[] all = new int[size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        for (int i = 0; i < n; i++) {
            int j = i + random.nextInt(all.length - i);
            int t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        return subset(java.util.Arrays.copyOf(all, n));
    }

    /**
     * An Internet-like synthetic matrix: locations cluster around 8 "continents" placed in a plane
     * (inter-cluster RTTs of roughly 30 to 300 ms), each location adds an access delay to every path, and
     * 5 % multiplicative noise breaks the triangle inequality now and then, as real paths do.
     */
    public static LatencyMatrix synthetic(int n, long seed) {
        Random random = new Random(seed);
        int clusters = 8;
        double[][] centres = new double[clusters][2];
        for (double[] c : centres) {
            c[0] = random.nextDouble() * 250;
            c[1] = random.nextDouble() * 120;
        }
        double[][] pos = new double[n][2];
        double[] access = new double[n];
        for (int i = 0; i < n; i++) {
            double[] c = centres[random.nextInt(clusters)];
            pos[i][0] = c[0] + random.nextGaussian() * 12;
            pos[i][1] = c[1] + random.nextGaussian() * 12;
            access[i] = 0.5 + -Math.log(1 - random.nextDouble()) * 4; // exponential, mean 4 ms
        }
        double[][] rtt = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                double dx = pos[i][0] - pos[j][0];
                double dy = pos[i][1] - pos[j][1];
                double base = Math.sqrt(dx * dx + dy * dy) + access[i] + access[j];
                double v = base * (1 + 0.05 * random.nextGaussian());
                rtt[i][j] = rtt[j][i] = Math.max(0.2, v);
            }
        }
        return new LatencyMatrix("synthetic-" + n, rtt);
    }

    /**
     * {@link #synthetic} with what real matrices add (the shapes that crashed the simulator): about half
     * of the locations share a site with an earlier one (sub-millisecond RTTs of 0.05 to 0.9 ms
     * between them, like hosts of one campus), about 2 % of the pairs are unknown and about 0.3 % are
     * outliers of 500 to 2000 ms, which break the triangle inequality badly.
     */
    public static LatencyMatrix rough(int n, long seed) {
        double[][] base = synthetic(n, seed).rtt;
        Random random = new Random(seed ^ 0x5ca1ab1eL);
        int[] site = new int[n];
        for (int i = 0; i < n; i++) {
            site[i] = i > 0 && random.nextBoolean() ? site[random.nextInt(i)] : i;
        }
        double[][] rtt = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                double v;
                if (site[i] == site[j]) {
                    v = 0.05 + random.nextDouble() * 0.85;
                } else {
                    v = Math.max(0.2, base[site[i]][site[j]] * (1 + 0.05 * random.nextGaussian()));
                }
                double u = random.nextDouble();
                if (u < 0.02) {
                    v = -1;
                } else if (u < 0.023) {
                    v = 500 + random.nextDouble() * 1500;
                }
                rtt[i][j] = rtt[j][i] = v;
            }
        }
        return new LatencyMatrix("rough-" + n, rtt);
    }
}
