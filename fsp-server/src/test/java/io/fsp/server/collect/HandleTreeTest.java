package io.fsp.server.collect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.write.PositionalWriter;
import io.fsp.server.fs.UserRoot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Collector's writer through directory handles in a user's root: files and directories land under the
 * destination, and a directory swapped for a link to the outside while the writer works makes the next file
 * there fail instead of leading out.
 */
class HandleTreeTest {
    @TempDir
    Path dir;

    private PositionalWriter writer(Path root, Path destination) throws IOException {
        UserRoot user = new UserRoot(root);
        return new PositionalWriter(new HandleTree(user.open(destination.toRealPath()), user.openRoot()), false);
    }

    @Test
    void writesFilesAndDirectoriesUnderTheDestination() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        Path dest = Files.createDirectories(root.resolve("in"));
        try (PositionalWriter w = writer(root, dest)) {
            w.createDirectory("a/b/c");
            w.prepareTemporaryFile("a/b/file.txt", 5, false);
            w.write("a/b/file.txt", 0, ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
            w.force("a/b/file.txt");
            w.complete("a/b/file.txt");
            w.prepareFile("empty.txt", 0);
        }
        assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(dest.resolve("a/b/file.txt")));
        assertTrue(Files.isDirectory(dest.resolve("a/b/c")));
        assertEquals(0, Files.size(dest.resolve("empty.txt")));
        try (Stream<Path> s = Files.list(dest.resolve("a/b"))) {
            assertEquals(2, s.count(), "no temporary name left");
        }
    }

    @Test
    void aDirectorySwappedForALinkOutsideIsNeverFollowed() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        Path dest = Files.createDirectories(root.resolve("in"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        try (PositionalWriter w = writer(root, dest)) {
            w.createDirectory("sub");
            w.prepareFile("sub/first.bin", 3);
            w.closeFile("sub/first.bin");
            // a local user swaps the directory for a link out of the root while the collection runs
            Files.move(dest.resolve("sub"), root.resolve("moved"));
            Files.createSymbolicLink(dest.resolve("sub"), outside);
            assertThrows(IOException.class, () -> w.prepareFile("sub/second.bin", 3));
            assertThrows(IOException.class, () -> w.prepareFile("sub/first.bin", 3));
            assertThrows(IOException.class, () -> w.createDirectory("sub/deeper"));
            // and a link planted at a file's name is refused, not written through
            Files.createSymbolicLink(dest.resolve("planted.bin"), outside.resolve("victim.bin"));
            assertThrows(IOException.class, () -> w.prepareFile("planted.bin", 3));
        }
        try (Stream<Path> s = Files.list(outside)) {
            assertEquals(0, s.count(), "nothing written outside the root");
        }
        assertFalse(Files.exists(outside.resolve("victim.bin")));
    }
}
