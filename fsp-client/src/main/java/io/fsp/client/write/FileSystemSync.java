package io.fsp.client.write;

import com.sun.jna.LastErrorException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * syncfs(2): everything written to one file system before the call, data and names, made durable at once. For a
 * group of many small new files that is far cheaper than an fdatasync of each and an fsync of each directory (the
 * kernel writes each inode table block once, not once per file). It syncs what other processes wrote to that file
 * system too, so it is meant for groups of many files only.
 *
 * <p>It is as honest as the per-file syncs only under three conditions, and {@link PositionalWriter} uses it only
 * where all hold: the kernel reports write-back errors from syncfs (Linux 5.8 and later; before, syncfs returns 0
 * whatever failed, see {@link #available()}); every file of the group is on the file system of the descriptor
 * synced (same {@code st_dev}: a file under a mount point inside the destination is on another one, which syncfs
 * of the destination does not touch); and the descriptor was opened before the first write of the group. The kernel
 * reports a write-back error to every descriptor opened before it happened, once each (errseq), whoever else saw it
 * meanwhile: a descriptor opened just before the syncfs would miss an error that another process's syncfs saw first.
 * Linux only ({@link LibC}); elsewhere callers sync file by file.
 */
public final class FileSystemSync implements Closeable {
    private static final boolean AVAILABLE = LibC.C != null && reportsWriteBackErrors(System.getProperty("os.version", ""));

    private final Path dir;
    private final int fd;
    private final long device;

    private FileSystemSync(Path dir, int fd, long device) {
        this.dir = dir;
        this.fd = fd;
        this.device = device;
    }

    /** Whether syncfs is reachable here and reports write-back errors (Linux 5.8 or later). */
    public static boolean available() {
        return AVAILABLE;
    }

    /** Whether a kernel of release {@code release} (uname -r, e.g. {@code 5.15.0-91-generic}) is 5.8 or later. */
    static boolean reportsWriteBackErrors(String release) {
        String[] v = release.split("[^0-9]+", 3);
        try {
            int major = Integer.parseInt(v[0]);
            int minor = v.length > 1 ? Integer.parseInt(v[1]) : 0;
            return major > 5 || major == 5 && minor >= 8;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * Opens directory {@code dir}: a later {@link #sync} reports every write-back error of its file system from now
     * on. Open it before the first write it is to answer for.
     */
    public static FileSystemSync open(Path dir) throws IOException {
        if (!AVAILABLE) {
            throw new IOException("syncfs: not available on this system (needs Linux 5.8 or later)");
        }
        int fd;
        try {
            fd = LibC.C.open(dir.toString(), LibC.O_RDONLY | LibC.O_DIRECTORY | LibC.O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw new IOException(dir + ": open for syncfs: errno " + e.getErrorCode(), e);
        }
        try {
            // the device of what was opened (fstat through /proc), not of whatever the path names by now
            long device = (Long) Files.getAttribute(Path.of("/proc/self/fd/" + fd), "unix:dev");
            return new FileSystemSync(dir, fd, device);
        } catch (IOException | RuntimeException e) {
            LibC.closeQuietly(fd, dir);
            throw e;
        }
    }

    /** The file system's device ({@code st_dev}): a file with another one is not covered by {@link #sync}. */
    public long device() {
        return device;
    }

    /**
     * Syncs the file system: what was written to it before this call is on disk, or this throws, if a write-back
     * error happened since this was opened (or since the last sync of it).
     */
    public void sync() throws IOException {
        int rc;
        try {
            rc = LibC.C.syncfs(fd);
        } catch (LastErrorException e) {
            throw new IOException(dir + ": syncfs: errno " + e.getErrorCode()
                    + " (a write to this file system failed: data may not be on disk)", e);
        }
        if (rc != 0) {
            throw new IOException(dir + ": syncfs returned " + rc + " (data may not be on disk)");
        }
    }

    @Override
    public void close() {
        LibC.closeQuietly(fd, dir);
    }
}
