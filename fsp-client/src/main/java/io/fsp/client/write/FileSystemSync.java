package io.fsp.client.write;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * syncfs(2): everything written to one file system before the call, data and names, made durable at once. For a
 * group of many small new files that is far cheaper than an fdatasync of each and an fsync of each directory (the
 * kernel writes each inode table block once, not once per file), and as durable: since Linux 5.8 it reports the
 * write-back errors of every file. It syncs what other processes wrote to that file system too, so it is meant for
 * groups of many files only. Linux only ({@link LibC}); elsewhere {@link #available()} is false and callers sync file
 * by file.
 */
public final class FileSystemSync {
    private FileSystemSync() {
    }

    public static boolean available() {
        return LibC.C != null;
    }

    /** Syncs the file system that directory {@code dir} is on. */
    public static void sync(Path dir) throws IOException {
        if (LibC.C == null) {
            throw new IOException("syncfs: not available on this system");
        }
        int fd;
        try {
            fd = LibC.C.open(dir.toString(), LibC.O_RDONLY | LibC.O_DIRECTORY | LibC.O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new IOException(dir + ": open for syncfs: errno " + e.getErrorCode(), e);
        }
        try {
            LibC.C.syncfs(fd);
        } catch (LastErrorException e) {
            throw new IOException(dir + ": syncfs: errno " + e.getErrorCode()
                    + " (a write to this file system failed: data may not be on disk)", e);
        } finally {
            LibC.closeQuietly(fd, dir);
        }
    }
}
