package io.fsp.cli.demo;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The plain local copy {@code fsp demo} sets beside FSP: the tree copied file by file with {@link Files#copy} in
 * one thread, to the same disk; no encryption, no digests and no fsync (as {@code cp -r} would do it).
 *
 * @param seconds from the first directory made to the last file copied
 */
public record LocalCopy(int files, long bytes, double seconds) {
    /** How the copy is made, as the demo's output names it. */
    public static final String METHOD = "Files.copy";

    public double megabytesPerSecond() {
        return seconds > 0 ? bytes / 1e6 / seconds : 0;
    }

    /** Copies the tree {@code from} to {@code to} (which must not exist) and times it. */
    public static LocalCopy of(Path from, Path to) throws IOException {
        int[] files = {0};
        long[] bytes = {0};
        long start = System.nanoTime();
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectory(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file).toString()));
                files[0]++;
                bytes[0] += attrs.size();
                return FileVisitResult.CONTINUE;
            }
        });
        return new LocalCopy(files[0], bytes[0], (System.nanoTime() - start) / 1e9);
    }
}
