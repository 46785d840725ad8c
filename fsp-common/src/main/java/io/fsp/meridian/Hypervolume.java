package io.fsp.meridian;

import java.util.ArrayList;
import java.util.List;

/**
 * Meridian's ring-diversity criterion. Each ring member is a point whose coordinates are its RTTs to
 * all members of the ring; of m candidates, keep the k whose points span the largest polytope. The
 * greedy variant of the Meridian paper: drop, one at a time, the candidate whose removal leaves the
 * largest volume.
 */
public final class Hypervolume {
    private Hypervolume() {
    }

    /**
     * Indices (into {@code latencyMs}) of the {@code keep} most diverse candidates, in ascending order.
     * {@code latencyMs} is a symmetric m × m matrix of RTTs between candidates.
     */
    public static List<Integer> select(double[][] latencyMs, int keep) {
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < latencyMs.length; i++) {
            chosen.add(i);
        }
        while (chosen.size() > keep) {
            int dropAt = 0;
            double best = -1;
            for (int i = 0; i < chosen.size(); i++) {
                List<Integer> rest = new ArrayList<>(chosen);
                rest.remove(i);
                double v = volume(latencyMs, rest);
                if (v > best) {
                    best = v;
                    dropAt = i;
                }
            }
            chosen.remove(dropAt);
        }
        return chosen;
    }

    /**
     * Volume (up to the constant 1/(p−1)!) of the simplex spanned by the points {@code rows}, each
     * point being a row of {@code coords}: sqrt(det(G)) where G is the Gram matrix of the edge
     * vectors x_i − x_0. For two points it is their Euclidean distance.
     */
    public static double volume(double[][] coords, List<Integer> rows) {
        int p = rows.size();
        if (p < 2) {
            return 0;
        }
        int dim = coords[rows.get(0)].length;
        double[][] edges = new double[p - 1][dim];
        double[] origin = coords[rows.get(0)];
        for (int i = 1; i < p; i++) {
            double[] x = coords[rows.get(i)];
            for (int d = 0; d < dim; d++) {
                edges[i - 1][d] = x[d] - origin[d];
            }
        }
        double[][] gram = new double[p - 1][p - 1];
        for (int i = 0; i < p - 1; i++) {
            for (int j = i; j < p - 1; j++) {
                double dot = 0;
                for (int d = 0; d < dim; d++) {
                    dot += edges[i][d] * edges[j][d];
                }
                gram[i][j] = dot;
                gram[j][i] = dot;
            }
        }
        double det = determinant(gram);
        return det <= 0 ? 0 : Math.sqrt(det);
    }

    /** Determinant by Gaussian elimination with partial pivoting (the matrices here are at most 32 × 32). */
    static double determinant(double[][] matrix) {
        int n = matrix.length;
        double[][] a = new double[n][];
        for (int i = 0; i < n; i++) {
            a[i] = matrix[i].clone();
        }
        double det = 1;
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) {
                if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
                    pivot = r;
                }
            }
            if (a[pivot][col] == 0) {
                return 0;
            }
            if (pivot != col) {
                double[] t = a[pivot];
                a[pivot] = a[col];
                a[col] = t;
                det = -det;
            }
            det *= a[col][col];
            for (int r = col + 1; r < n; r++) {
                double f = a[r][col] / a[col][col];
                for (int c = col; c < n; c++) {
                    a[r][c] -= f * a[col][c];
                }
            }
        }
        return det;
    }
}
