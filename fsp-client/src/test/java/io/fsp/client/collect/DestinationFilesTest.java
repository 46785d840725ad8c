package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;

/** Real files: local names, the temporary name until a file's last block is in, the space check. */
class DestinationFilesTest {
    private static AnnouncedBlock blk(int file, long offset, int length) {
        return AnnouncedBlock.of((Announcement.Block) ExtensionCodec.parse("BLK 0 relay:0 " + file + " " + offset + " "
                + length + " sha256:" + "ab".repeat(32)));
    }

    @TempDir
    Path dir;

    @Test
    void aFileKeepsItsTemporaryNameUntilItsLastBlockIsIn() throws Exception {
        Path dest = dir.resolve("copy.bin");
        try (DestinationFiles files = new DestinationFiles(dest, false)) {
            files.add(0, "remote/name.bin", 10, 0); // a single file goes to the destination's name
            assertEquals("copy.bin", files.get(0).local());
            files.prepareTemporaryFiles(Set.of());
            files.writer().write("copy.bin", 0, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
            files.blockIn(blk(0, 0, 4));
            assertFalse(Files.exists(dest), "final name before the last block");
            files.writer().write("copy.bin", 4, ByteBuffer.wrap(new byte[] {5, 6, 7, 8, 9, 10}));
            files.blockIn(blk(0, 4, 6));
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Files.readAllBytes(dest));
            assertEquals(List.of(), files.notRenamed());
            try (var left = Files.list(dir)) {
                assertEquals(List.of(dest), left.toList(), "no temporary file left");
            }
        }
    }

    @Test
    void aDirectorysEntriesGoUnderTheDestination() throws Exception {
        Path dest = dir.resolve("tree");
        try (DestinationFiles files = new DestinationFiles(dest, false)) {
            files.directory(true);
            files.add(3, "sub/a.bin", 1, 0);
            files.createDirectory("sub");
            files.prepareTemporaryFiles(Set.of());
            files.writer().write("sub/a.bin", 0, ByteBuffer.wrap(new byte[] {42}));
            files.blockIn(blk(3, 0, 1));
            assertArrayEquals(new byte[] {42}, Files.readAllBytes(dest.resolve("sub/a.bin")));
        }
    }

    @Test
    void moreThanTheDiskHoldsIsRefusedBeforeTheFirstByte() throws Exception {
        try (DestinationFiles files = new DestinationFiles(dir.resolve("huge.bin"), false)) {
            files.add(0, "huge.bin", Long.MAX_VALUE / 2, 0);
            NotEnoughSpaceException e = assertThrows(NotEnoughSpaceException.class, () -> files.checkSpace(0));
            assertTrue(e.getMessage().contains("not enough space"), e.getMessage());
            files.checkSpace(Long.MAX_VALUE / 2); // all of it held from an earlier run: nothing to write
        }
    }
}
