package io.fsp.client.write;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * syncfs(2): everything written to one file system before the call, data and names, made durable at once. For a
 * group of many small new files that is far cheaper than an fdatasync of each and an fsync of each directory (the
 * kernel writes each inode table block once, not once per file), and as durable: since Linux 5.8 it reports the
 * write-back errors of every file. It syncs what other processes wrote to that file system too, so it is meant for
 * groups of many files only. Linux only; elsewhere (or where the C library cannot be reached) {@link #available()} is
 * false and callers sync file by file.
 */
public final class FileSystemSync {
    private static final Logger log = LoggerFactory.getLogger(FileSystemSync.class);
    private static final int O_RDONLY = 0;
    private static final int O_DIRECTORY = 0200000;
    private static final int O_CLOEXEC = 02000000;

    private interface LibC extends Library {
        int open(String path, int flags) throws LastErrorException;

        int syncfs(int fd) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    private static final LibC LIBC = load();

    private FileSystemSync() {
    }

    private static LibC load() {
        if (!System.getProperty("os.name", "").equals("Linux")) {
            return null;
        }
        try {
            return Native.load("c", LibC.class);
        } catch (LinkageError | RuntimeException e) {
            log.debug("syncfs is not available ({}); files are synced one by one", e.toString());
            return null;
        }
    }

    public static boolean available() {
        return LIBC != null;
    }

    /** Syncs the file system that directory {@code dir} is on. */
    public static void sync(Path dir) throws IOException {
        if (LIBC == null) {
            throw new IOException("syncfs: not available on this system");
        }
        int fd;
        try {
            fd = LIBC.open(dir.toString(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new IOException(dir + ": open for syncfs: errno " + e.getErrorCode(), e);
        }
        try {
            LIBC.syncfs(fd);
        } catch (LastErrorException e) {
            throw new IOException(dir + ": syncfs: errno " + e.getErrorCode()
                    + " (a write to this file system failed: data may not be on disk)", e);
        } finally {
            try {
                LIBC.close(fd);
            } catch (LastErrorException e) {
                log.debug("closing {} after syncfs: errno {}", dir, e.getErrorCode());
            }
        }
    }
}
