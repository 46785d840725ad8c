package io.fsp.cli.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The data set of {@code fsp demo}: a tree shaped like real data, many small files in several directories and a
 * few large ones, with pseudo-random content from a seeded generator (the same seed gives the same tree, byte for
 * byte). Small files are 0 to 64 KiB, most of them small (the size is 64 KiB times the square of a uniform draw);
 * the large files share what the small ones leave of the total, each between about half and one and a half times
 * their mean. The tree also holds what exercises the format: an empty file, an empty directory, a nested
 * directory and non-ASCII names.
 */
public final class DemoTree {
    /** The largest small file. */
    public static final int SMALL_MAX = 64 * 1024;
    /** The mean size the large files aim at (their count is what the small files leave, divided by this). */
    static final long LARGE_MEAN = 40L << 20;
    /** The share of the total at most that small files take. */
    private static final double SMALL_SHARE = 0.5;

    private static final String[][] GROUPS = {{"src", "module", ".java"}, {"docs", "section", ".md"},
            {"logs", "day", ".log"}, {"images", "album", ".jpg"}, {"config", "env", ".json"}};

    /**
     * What {@link #generate} made.
     *
     * @param files      regular files, small and large
     * @param directories directories below the root, the empty one included
     * @param bytes      the size of all files together: the requested total
     * @param smallBytes the size of the small files together
     * @param largeMin   the smallest large file (0 if there is none)
     * @param largeMax   the largest large file
     */
    public record Shape(int files, int directories, long bytes, int smallFiles, long smallBytes, int largeFiles,
                        long largeMin, long largeMax) {
    }

    private DemoTree() {
    }

    /**
     * Writes the tree under {@code root} (created): {@code smallFiles} small files and large ones, {@code totalBytes}
     * in all. When the small files would take more than half of the total they are made smaller.
     */
    public static Shape generate(Path root, long totalBytes, int smallFiles, long seed) throws IOException {
        if (totalBytes < 1 || smallFiles < 0) {
            throw new IllegalArgumentException("totalBytes " + totalBytes + ", smallFiles " + smallFiles
                    + " (expected: >= 1, >= 0)");
        }
        SplittableRandom random = new SplittableRandom(seed);
        long[] small = new long[smallFiles];
        long smallBytes = 0;
        for (int i = 0; i < smallFiles; i++) {
            double u = random.nextDouble();
            small[i] = i == 0 ? 0 : (long) (u * u * (SMALL_MAX + 1)); // the first is the empty file
            smallBytes += small[i];
        }
        long smallBudget = (long) (totalBytes * SMALL_SHARE);
        if (smallBytes > smallBudget) {
            double scale = (double) smallBudget / smallBytes;
            smallBytes = 0;
            for (int i = 0; i < smallFiles; i++) {
                small[i] = (long) (small[i] * scale);
                smallBytes += small[i];
            }
        }
        long[] large = largeSizes(totalBytes - smallBytes, random);

        Files.createDirectories(root);
        Files.createDirectories(root.resolve("empty-dir"));
        List<Path> directories = new ArrayList<>(List.of(root.resolve("empty-dir")));
        int leaves = Math.max(GROUPS.length, Math.min(60, smallFiles / 50));
        List<Path> leafDirs = new ArrayList<>();
        for (int i = 0; i < leaves; i++) {
            String[] g = GROUPS[i % GROUPS.length];
            Path dir = root.resolve(g[0]).resolve(String.format("%s-%02d", g[1], i / GROUPS.length));
            leafDirs.add(dir);
        }
        byte[] buffer = new byte[1 << 20];
        for (int i = 0; i < smallFiles; i++) {
            Path dir = leafDirs.get(i % leaves);
            String ext = GROUPS[i % leaves % GROUPS.length][2];
            Path file = switch (i) {
                case 0 -> dir.resolve("empty.txt");
                case 1 -> dir.resolve("日本語" + ext);
                case 2 -> dir.resolve("nested").resolve("deeper").resolve("données-ü" + ext);
                default -> dir.resolve(String.format("f%05d%s", i, ext));
            };
            Files.createDirectories(file.getParent());
            write(file, small[i], random, buffer);
        }
        for (int i = 0; i < large.length; i++) {
            Path file = i % 2 == 0 ? root.resolve("datasets").resolve(String.format("run-%02d.h5", i))
                    : root.resolve("archives").resolve(String.format("backup-%02d.tar", i));
            Files.createDirectories(file.getParent());
            write(file, large[i], random, buffer);
        }
        int dirCount;
        try (var walk = Files.walk(root)) {
            dirCount = (int) walk.filter(p -> !p.equals(root) && Files.isDirectory(p)).count();
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (long l : large) {
            min = Math.min(min, l);
            max = Math.max(max, l);
        }
        return new Shape(smallFiles + large.length, dirCount, totalBytes, smallFiles, smallBytes, large.length,
                large.length == 0 ? 0 : min, max);
    }

    /** {@code bytes} split into files of about {@link #LARGE_MEAN}, sizes drawn between 0.5 and 1.5 of the mean. */
    private static long[] largeSizes(long bytes, SplittableRandom random) {
        if (bytes <= 0) {
            return new long[0];
        }
        int count = (int) Math.max(1, Math.round((double) bytes / LARGE_MEAN));
        double[] weight = new double[count];
        double sum = 0;
        for (int i = 0; i < count; i++) {
            weight[i] = 0.5 + random.nextDouble();
            sum += weight[i];
        }
        long[] sizes = new long[count];
        long left = bytes;
        for (int i = 0; i < count - 1; i++) {
            sizes[i] = (long) (bytes * weight[i] / sum);
            left -= sizes[i];
        }
        sizes[count - 1] = left;
        return sizes;
    }

    /** {@code size} bytes of the generator's stream into {@code file}. */
    private static void write(Path file, long size, SplittableRandom random, byte[] buffer) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (long left = size; left > 0; ) {
                int n = (int) Math.min(buffer.length, left);
                fill(buffer, n, random);
                ByteBuffer b = ByteBuffer.wrap(buffer, 0, n);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                left -= n;
            }
        }
    }

    /** The first {@code n} bytes of {@code buffer} from the generator, eight per draw. */
    private static void fill(byte[] buffer, int n, SplittableRandom random) {
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long r = random.nextLong();
            buffer[i] = (byte) r;
            buffer[i + 1] = (byte) (r >>> 8);
            buffer[i + 2] = (byte) (r >>> 16);
            buffer[i + 3] = (byte) (r >>> 24);
            buffer[i + 4] = (byte) (r >>> 32);
            buffer[i + 5] = (byte) (r >>> 40);
            buffer[i + 6] = (byte) (r >>> 48);
            buffer[i + 7] = (byte) (r >>> 56);
        }
        for (long r = random.nextLong(); i < n; i++, r >>>= 8) {
            buffer[i] = (byte) r;
        }
    }
}
