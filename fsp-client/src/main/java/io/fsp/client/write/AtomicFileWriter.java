package io.fsp.client.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small file whole, atomically and durably: written beside it as {@code .NAME.part}, forced, renamed
 * over it, and its directory forced, so that a reader (or a run after a crash) finds the old content or the new,
 * never a mixture or nothing.
 */
public final class AtomicFileWriter {
    private AtomicFileWriter() {
    }

    public static void write(Path file, byte[] content) throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        Path part = dir.resolve("." + target.getFileName() + ".part");
        try (FileChannel ch = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
