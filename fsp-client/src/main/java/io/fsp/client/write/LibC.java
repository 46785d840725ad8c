package io.fsp.client.write;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The few C library calls the client needs that Java does not offer: {@code syncfs(2)} ({@link FileSystemSync}) and
 * {@code flock(2)} ({@link DestinationLock}), through JNA. Linux only: elsewhere, or where the C library cannot be
 * reached, {@link #C} is null and callers do without.
 */
final class LibC {
    static final int O_RDONLY = 0;
    static final int O_RDWR = 02;
    static final int O_CREAT = 0100;
    static final int O_NOFOLLOW = 0400000;
    static final int O_DIRECTORY = 0200000;
    static final int O_CLOEXEC = 02000000;
    static final int LOCK_SH = 1;
    static final int LOCK_EX = 2;
    static final int LOCK_NB = 4;
    static final int EWOULDBLOCK = 11;
    static final int ENOENT = 2;
    static final int EACCES = 13;
    static final int ELOOP = 40;

    interface Calls extends Library {
        int open(String path, int flags, int mode) throws LastErrorException;

        int close(int fd) throws LastErrorException;

        int syncfs(int fd) throws LastErrorException;

        int flock(int fd, int operation) throws LastErrorException;

        int ftruncate(int fd, long length) throws LastErrorException;

        long write(int fd, byte[] buffer, long count) throws LastErrorException;
    }

    private static final Logger log = LoggerFactory.getLogger(LibC.class);
    /** Null where not available. */
    static final Calls C = load();

    private LibC() {
    }

    private static Calls load() {
        if (!System.getProperty("os.name", "").equals("Linux")) {
            return null;
        }
        try {
            return Native.load("c", Calls.class);
        } catch (LinkageError | RuntimeException e) {
            log.debug("the C library is not reachable ({}): no syncfs, no destination locks", e.toString());
            return null;
        }
    }

    /** Closes {@code fd}, logging (not throwing) a failure: for descriptors opened only to read or lock. */
    static void closeQuietly(int fd, Object what) {
        try {
            C.close(fd);
        } catch (LastErrorException e) {
            log.debug("closing {}: errno {}", what, e.getErrorCode());
        }
    }
}
