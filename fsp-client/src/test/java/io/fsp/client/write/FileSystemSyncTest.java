package io.fsp.client.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemSyncTest {
    @TempDir
    Path dir;

    @Test
    void syncsTheFileSystemOfADirectoryAndSaysWhyItCannot() throws Exception {
        assertTrue(FileSystemSync.available(), "syncfs through the C library on Linux");
        FileSystemSync.sync(dir);
        IOException e = assertThrows(IOException.class, () -> FileSystemSync.sync(dir.resolve("missing")));
        assertTrue(e.getMessage().contains("errno 2"), e.getMessage()); // ENOENT
        Files.writeString(dir.resolve("file"), "x");
        e = assertThrows(IOException.class, () -> FileSystemSync.sync(dir.resolve("file")));
        assertTrue(e.getMessage().contains("errno 20"), e.getMessage()); // ENOTDIR
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
            w.syncFileSystem(files);
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
