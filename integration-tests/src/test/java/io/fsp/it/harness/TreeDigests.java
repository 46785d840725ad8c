package io.fsp.it.harness;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Whole-tree comparison: SHA-256 of every file and the names of every directory, by relative path. */
public final class TreeDigests {
    private TreeDigests() {
    }

    public static Map<String, String> of(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(p -> !p.equals(root)).toList()) {
                String name = root.relativize(p).toString();
                out.put(name, Files.isDirectory(p) ? "dir" : sha256(p));
            }
        }
        return out;
    }

    public static String sha256(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (FileChannel ch = FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocate(1 << 20);
            while (ch.read(b.clear()) >= 0) {
                md.update(b.flip());
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** Writes {@code size} pseudo-random bytes (seeded) to {@code file}. */
    public static byte[] random(Path file, int size, long seed) throws Exception {
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        Files.createDirectories(file.getParent());
        Files.write(file, data);
        return data;
    }
}
