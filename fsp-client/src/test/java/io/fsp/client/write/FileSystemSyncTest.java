package io.fsp.client.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class FileSystemSyncTest {
    @TempDir
    Path dir;

    private static final int FILES = 100;
    private static final int FILE_BYTES = 1 << 20;

    @Test
    void syncsTheFileSystemOfADirectoryAndSaysWhyItCannot() throws Exception {
        assertTrue(FileSystemSync.available(), "syncfs through the C library on Linux 5.8 or later");
        try (FileSystemSync fs = FileSystemSync.open(dir)) {
            fs.sync();
            assertEquals(Files.getAttribute(dir, "unix:dev"), fs.device());
        }
        IOException e = assertThrows(IOException.class, () -> FileSystemSync.open(dir.resolve("missing")));
        assertTrue(e.getMessage().contains("errno 2"), e.getMessage()); // ENOENT
        Files.writeString(dir.resolve("file"), "x");
        e = assertThrows(IOException.class, () -> FileSystemSync.open(dir.resolve("file")));
        assertTrue(e.getMessage().contains("errno 20"), e.getMessage()); // ENOTDIR
    }

    /** Before 5.8 syncfs returns 0 whatever failed: not used there. */
    @Test
    void onlyKernelsThatReportWriteBackErrors() {
        assertTrue(FileSystemSync.reportsWriteBackErrors("5.8.0"));
        assertTrue(FileSystemSync.reportsWriteBackErrors("5.15.0-91-generic"));
        assertTrue(FileSystemSync.reportsWriteBackErrors("6.1.0"));
        assertFalse(FileSystemSync.reportsWriteBackErrors("5.7.19"));
        assertFalse(FileSystemSync.reportsWriteBackErrors("4.19.0-25-amd64"));
        assertFalse(FileSystemSync.reportsWriteBackErrors("3.10.0-1160.el7.x86_64"));
        assertFalse(FileSystemSync.reportsWriteBackErrors(""));
    }

    /**
     * A real write-back error (the disk under an ext4 runs out of room): the sync reports it, even though another
     * process's syncfs saw it first; the files do not count as durable.
     */
    @Test
    @Timeout(180)
    void aWriteBackErrorIsReportedEvenIfAnotherProcessSawItFirst() throws Exception {
        assumeTrue(FailingDisk.root(), "mounting a loop ext4 image needs root: skipped");
        try (FailingDisk disk = FailingDisk.mount(dir, dir.resolve("i43sync-dest"));
             PositionalWriter w = new PositionalWriter(disk.mountPoint())) {
            FileSystemSync fs = w.openFileSystemSync();
            try (fs) {
                List<String> files = writeFiles(w, "");
                // someone else syncs that file system first and is told of the error
                Process other = new ProcessBuilder("sync", "-f", disk.mountPoint().toString()).redirectErrorStream(true).start();
                String said = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertNotEquals(0, other.waitFor(), "the other process's syncfs reports the error: " + said);
                IOException e = assertThrows(IOException.class, () -> w.syncFileSystem(fs, files));
                assertTrue(e.getMessage().contains("syncfs: errno"), e.getMessage());
            }
        }
    }

    /**
     * Files under a mount point inside the destination are on another file system, which a syncfs of the
     * destination's does not write: the group is not synced that way, and the files' own syncs report the error.
     */
    @Test
    @Timeout(180)
    void filesUnderAMountPointInsideTheDestinationAreSyncedOneByOne() throws Exception {
        assumeTrue(FailingDisk.root(), "mounting a loop ext4 image needs root: skipped");
        Path root = Files.createDirectory(dir.resolve("i43sync-root"));
        try (FailingDisk disk = FailingDisk.mount(dir, root.resolve("inner"));
             PositionalWriter w = new PositionalWriter(root)) {
            try (FileSystemSync fs = w.openFileSystemSync()) {
                List<String> files = writeFiles(w, "inner/");
                assertFalse(w.syncFileSystem(fs, files), "a syncfs of the root's file system does not cover them");
                int failed = 0;
                for (String f : files) {
                    try {
                        w.forceData(f);
                    } catch (IOException e) {
                        failed++;
                    }
                }
                assertTrue(failed > 0, "the files' own syncs report the write-back error");
            }
        }
    }

    /** {@value #FILES} files of {@value #FILE_BYTES} bytes under {@code dir}: more than a {@link FailingDisk} can write back. */
    private static List<String> writeFiles(PositionalWriter w, String dir) throws IOException {
        List<String> files = new ArrayList<>();
        byte[] data = new byte[FILE_BYTES];
        for (int i = 0; i < FILES; i++) {
            String name = dir + "f" + i;
            new Random(i).nextBytes(data);
            w.prepareTemporaryFile(name, data.length, false);
            w.write(name, 0, ByteBuffer.wrap(data));
            files.add(name);
        }
        return files;
    }

    /** One sync for many new files: their data and their names count as durable, nothing is left to flush. */
    @Test
    void aWritersNewFilesAreDurableAfterOneSync() throws Exception {
        try (PositionalWriter w = new PositionalWriter(dir)) {
            List<String> files = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String name = "d" + i % 5 + "/f" + i;
                w.prepareTemporaryFile(name, 1, false);
                w.write(name, 0, ByteBuffer.wrap(new byte[] {(byte) i}));
                files.add(name);
            }
            try (FileSystemSync fs = w.openFileSystemSync()) {
                assertTrue(w.syncFileSystem(fs, files), "every file is on the root's file system");
            }
            for (String f : files) {
                w.complete(f);
            }
            w.syncNames();
            for (int i = 0; i < 100; i++) {
                assertEquals(i, Files.readAllBytes(dir.resolve("d" + i % 5 + "/f" + i))[0] & 0xff);
            }
            try (var left = Files.walk(dir)) {
                assertFalse(left.anyMatch(p -> p.getFileName().toString().endsWith(".fsp-part")));
            }
        }
    }
}
