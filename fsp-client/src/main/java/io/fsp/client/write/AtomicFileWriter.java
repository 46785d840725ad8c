package io.fsp.client.write;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Replaces a small file whole, atomically and durably: written beside it under a new random name
 * ({@code .NAME.part-RANDOM}, created exclusively, never through a link, so a name or link another user put there
 * beforehand is neither written through nor renamed into place), forced, renamed over it, and its directory forced,
 * so that a reader (or a run after a crash) finds the old content or the new, never a mixture or nothing.
 */
public final class AtomicFileWriter {
    private static final SecureRandom RANDOM = new SecureRandom();

    private AtomicFileWriter() {
    }

    public static void write(Path file, byte[] content) throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        byte[] r = new byte[8];
        RANDOM.nextBytes(r);
        Path part = dir.resolve("." + target.getFileName() + ".part-" + HexFormat.of().formatHex(r));
        try {
            try (FileChannel ch = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                ByteBuffer b = ByteBuffer.wrap(content);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(part);
            throw e;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
