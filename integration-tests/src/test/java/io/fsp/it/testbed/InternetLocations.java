package io.fsp.it.testbed;

import io.fsp.testkit.meridian.sim.LatencyMatrix;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Where the hosts of the Internet-like testbed sit in a latency matrix: a server and a client far apart, and three
 * groups of {@code perGroup} relays: the ones nearest the server that are far from the client, the ones nearest the
 * client that are far from the server, and others drawn at random from the locations near neither.
 *
 * <p>The rule ({@link #pick}): among the pairs whose RTT lies in {@code [minMs, maxMs]}, the server and client are
 * the pair with the most candidates in its smaller group (ties: the lowest indices), a candidate of the server's
 * group being within {@code nearMs} of the server and at least 0.8 × RTT(server, client) from the client, and the
 * other way round for the client's. "Elsewhere" relays are more than {@code nearMs} from both.
 *
 * @param server the server's location in the matrix
 * @param client the client's location
 * @param relays the relays' locations: the server's group, then the client's, then the others
 */
record InternetLocations(LatencyMatrix matrix, int server, int client, List<Integer> relays, int perGroup) {
    /** From the integration-tests module directory (where Maven and the bench scripts run). */
    static final Path PLANETLAB = Path.of("..", "fsp-testkit", "src", "test", "resources", "latency",
            "planetlab-303-rtt-ms.txt.gz");
    private static final double FAR_SHARE = 0.8;

    static InternetLocations planetLab(int perGroup, double nearMs, double minMs, double maxMs, long seed)
            throws IOException {
        return pick(LatencyMatrix.load(PLANETLAB), perGroup, nearMs, minMs, maxMs, seed);
    }

    static InternetLocations pick(LatencyMatrix m, int perGroup, double nearMs, double minMs, double maxMs,
                                  long seed) {
        int n = m.size();
        int bestS = -1;
        int bestC = -1;
        int best = -1;
        for (int s = 0; s < n; s++) {
            for (int c = s + 1; c < n; c++) {
                double rtt = m.rtt(s, c);
                if (rtt >= minMs && rtt <= maxMs) {
                    int size = Math.min(near(m, s, c, nearMs).size(), near(m, c, s, nearMs).size());
                    if (size > best) {
                        best = size;
                        bestS = s;
                        bestC = c;
                    }
                }
            }
        }
        if (best < perGroup) {
            throw new IllegalArgumentException("no server and client " + minMs + ".." + maxMs + " ms apart with "
                    + perGroup + " relays within " + nearMs + " ms of each (most: " + Math.max(best, 0) + ")");
        }
        int s = bestS;
        int c = bestC;
        List<Integer> relays = new ArrayList<>(near(m, s, c, nearMs).subList(0, perGroup));
        relays.addAll(near(m, c, s, nearMs).subList(0, perGroup));
        List<Integer> others = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            if (k != s && k != c && known(m, k, s) && known(m, k, c) && m.rtt(k, s) > nearMs && m.rtt(k, c) > nearMs) {
                others.add(k);
            }
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < perGroup; i++) {
            relays.add(others.remove(random.nextInt(others.size())));
        }
        return new InternetLocations(m, s, c, List.copyOf(relays), perGroup);
    }

    /** Locations within {@code nearMs} of {@code a} and far from {@code b}, nearest {@code a} first. */
    private static List<Integer> near(LatencyMatrix m, int a, int b, double nearMs) {
        double far = FAR_SHARE * m.rtt(a, b);
        List<Integer> out = new ArrayList<>();
        for (int k = 0; k < m.size(); k++) {
            if (k != a && k != b && known(m, k, a) && known(m, k, b) && m.rtt(k, a) <= nearMs && m.rtt(k, b) >= far) {
                out.add(k);
            }
        }
        out.sort(Comparator.comparingDouble((Integer k) -> m.rtt(k, a)).thenComparingInt(k -> k));
        return out;
    }

    private static boolean known(LatencyMatrix m, int i, int j) {
        return m.rtt(i, j) >= 0;
    }

    /** Matrix locations of every node: server, client, then the relays. */
    int[] locations() {
        int[] out = new int[2 + relays.size()];
        out[0] = server;
        out[1] = client;
        for (int i = 0; i < relays.size(); i++) {
            out[2 + i] = relays.get(i);
        }
        return out;
    }

    /** RTTs between every node, in {@link #locations} order (unknown pairs among relays: the mean of the known). */
    double[][] rttMs() {
        int[] at = locations();
        double[][] out = new double[at.length][at.length];
        double sum = 0;
        int known = 0;
        for (int i = 0; i < at.length; i++) {
            for (int j = 0; j < at.length; j++) {
                out[i][j] = i == j ? 0 : matrix.rtt(at[i], at[j]);
                if (i != j && out[i][j] >= 0) {
                    sum += out[i][j];
                    known++;
                }
            }
        }
        for (double[] row : out) {
            for (int j = 0; j < row.length; j++) {
                row[j] = row[j] < 0 ? sum / known : row[j];
            }
        }
        return out;
    }

    /** RTT between the server and the client in the matrix. */
    double serverClientMs() {
        return matrix.rtt(server, client);
    }

    /** "near server", "near client" or "elsewhere", for relay {@code relay} (0-based). */
    String group(int relay) {
        return relay < perGroup ? "near server" : relay < 2 * perGroup ? "near client" : "elsewhere";
    }
}
