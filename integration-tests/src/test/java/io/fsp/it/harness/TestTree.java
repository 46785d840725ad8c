package io.fsp.it.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/** The server's root directory as the tests see it: fresh directories per test, data and digests. */
public final class TestTree {
    private final Path base;
    private final Path root;

    /** {@code root} is the server's root, inside {@code base} which the tree deletes at the end. */
    public TestTree(Path base, Path root) {
        this.base = base;
        this.root = root;
    }

    public Path root() {
        return root;
    }

    /** A directory beside the root: nothing in it may be reachable through the server. */
    public Path outside() {
        try {
            return Files.createDirectories(base.resolve("outside"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fresh, empty directory {@code name} under the root (one per test keeps tests independent). */
    public Path dir(String name) {
        Path dir = root.resolve(name);
        try {
            if (Files.exists(dir)) {
                deleteRecursively(dir);
            }
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path write(Path file, byte[] data) {
        try {
            Files.createDirectories(file.getParent());
            return Files.write(file, data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code size} bytes of reproducible pseudo-random data. */
    public static byte[] randomBytes(int size, long seed) {
        byte[] data = new byte[size];
        new Random(seed).nextBytes(data);
        return data;
    }

    /**
     * A sparse file of {@code size} bytes, quick to create: random islands of 64 KiB every 16 MiB,
     * at the start and at the unaligned end, and holes (zeros) between them, so that a transfer
     * that shifts, drops or repeats any block changes the digest.
     */
    public static Path sparseFile(Path file, long size, long seed) throws IOException {
        Random random = new Random(seed);
        byte[] island = new byte[64 * 1024];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.SPARSE)) {
            for (long at = 0; at < size; at += 16L * 1024 * 1024 + 4099) {
                random.nextBytes(island);
                int n = (int) Math.min(island.length, size - at);
                ch.write(ByteBuffer.wrap(island, 0, n), at);
            }
            random.nextBytes(island);
            int tail = (int) Math.min(island.length, size);
            ch.write(ByteBuffer.wrap(island, 0, tail), size - tail);
        }
        return file;
    }

    public static String sha256(byte[] data) {
        return HexFormat.of().formatHex(digest("SHA-256").digest(data));
    }

    public static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return sha256(in);
        }
    }

    /** Reads {@code in} to its end and returns the SHA-256 of what it read, in lower-case hex. */
    public static String sha256(InputStream in) throws IOException {
        MessageDigest sha = digest("SHA-256");
        byte[] buffer = new byte[1 << 20];
        int n;
        while ((n = in.read(buffer)) > 0) {
            sha.update(buffer, 0, n);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    public static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is not available", e);
        }
    }

    /** Deletes the base directory with the root; symbolic links are removed, never followed. */
    public void deleteAll() throws IOException {
        if (Files.exists(base)) {
            deleteRecursively(base);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
