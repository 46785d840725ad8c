package io.fsp.client.write;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run at a time per destination. Two runs into the same destination (a rerun started while the first still
 * runs, a scheduled job that overlaps the last one) would share the temporary files and the journal: each would take
 * blocks the other journaled as verified, and one could rename a file the other still writes, so that a run reports
 * as verified bytes another process wrote. A run therefore holds a lock on a file beside the destination
 * ({@code .NAME.fsp-lock}) from before it reads anything there until it ends.
 *
 * <p>{@code flock(2)}, not Java's {@code FileLock}: a POSIX record lock is dropped when the process closes any
 * descriptor of the file, and reading the file to check it would do that. The kernel gives the lock back however
 * the process ends, so a run killed midway blocks nothing. The holder removes the file as it ends; a run that locked a
 * file removed meanwhile does not find its own text at the name, and tries again.
 *
 * <p>The file is opened without following a link and must belong to this process's user: a file another local user
 * made at that name (to hold the lock for a run it does not make, or to swap it later) is refused, not used.
 */
public final class DestinationLock implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DestinationLock.class);
    private static final int ATTEMPTS = 10;
    private static final int MAX_HOLDER_TEXT = 300;
    /** How long a rerun waits for a run whose launcher was killed to let go (an agent's command winding down). */
    private static final long WIND_DOWN_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(15);

    private final Path file;
    /** -1 where the C library is not reachable (nothing is locked). */
    private final int fd;

    private DestinationLock(Path file, int fd) {
        this.file = file;
        this.fd = fd;
    }

    /**
     * Takes the lock whose file is {@code file} (making its directory if missing); {@code what} says who holds it, to
     * a run that finds it taken, and {@code pid} the process that stops the run if signalled (the command's own, or
     * its launcher's where an agent runs it).
     *
     * @throws DestinationBusyException if another run holds it
     */
    public static DestinationLock take(Path file, String what) throws IOException {
        return take(file, what, ProcessHandle.current().pid());
    }

    /** {@link #take(Path, String)}, held for the process {@code pid} (an agent's command: its launcher). */
    public static DestinationLock take(Path file, String what, long pid) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        if (LibC.C == null) {
            log.debug("no lock on {}: the C library is not reachable", file);
            return new DestinationLock(file, -1);
        }
        byte[] mine = ("pid " + pid + ", " + what + ", since " + Instant.now() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        long windDownEnds = System.nanoTime() + WIND_DOWN_NANOS;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int fd = open(file);
            boolean kept = false;
            try {
                try {
                    LibC.C.flock(fd, LibC.LOCK_EX | LibC.LOCK_NB);
                } catch (LastErrorException e) {
                    if (e.getErrorCode() == LibC.EWOULDBLOCK) {
                        String holder = holder(file);
                        if (!windingDown(holder) || System.nanoTime() > windDownEnds) {
                            throw new DestinationBusyException(file, holder);
                        }
                        sleep();
                        attempt--; // not a race with other runs: one that is ending
                        continue;
                    }
                    // A file system without locks (some FUSE and network ones): the run goes on as it did before
                    // runs were locked out of each other's destinations.
                    log.warn("{}: cannot lock (errno {}); nothing keeps another run out of this destination", file,
                            e.getErrorCode());
                    Files.deleteIfExists(file);
                    return new DestinationLock(file, -1);
                }
                try {
                    LibC.C.ftruncate(fd, 0);
                    if (LibC.C.write(fd, mine, mine.length) != mine.length) {
                        throw new IOException(file + ": a short write");
                    }
                } catch (LastErrorException e) {
                    throw new IOException(file + ": writing the lock's holder: errno " + e.getErrorCode(), e);
                }
                if (Arrays.equals(mine, bytesAt(file))) { // the file at that name, not one removed since
                    checkOwner(file);
                    kept = true;
                    return new DestinationLock(file, fd);
                }
            } finally {
                if (!kept) {
                    LibC.closeQuietly(fd, file);
                }
            }
        }
        throw new IOException(file + ": could not take the destination's lock in " + ATTEMPTS
                + " attempts (other runs keep making and removing it)");
    }

    /**
     * Whether another run holds the lock whose file is {@code file}, without taking it or making the file: for a
     * writer that must not replace what a run is collecting (an FTP upload).
     *
     * @throws DestinationBusyException if another run holds it
     */
    public static void check(Path file) throws IOException {
        if (LibC.C == null) {
            return;
        }
        int fd;
        try {
            fd = LibC.C.open(file.toString(), LibC.O_RDONLY | LibC.O_NOFOLLOW | LibC.O_CLOEXEC, 0);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.ENOENT) {
                return; // no run made it: free
            }
            throw new IOException(file + ": open for the destination's lock: errno " + e.getErrorCode(), e);
        }
        try {
            LibC.C.flock(fd, LibC.LOCK_SH | LibC.LOCK_NB); // given back with the descriptor
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.EWOULDBLOCK) {
                throw new DestinationBusyException(file, holder(file));
            }
        } finally {
            LibC.closeQuietly(fd, file);
        }
    }

    /** Removes the lock file, then gives the lock back: a run waiting on this file finds its name gone and tries again. */
    @Override
    public void close() throws IOException {
        if (fd < 0) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } finally {
            LibC.closeQuietly(fd, file);
        }
    }

    private static int open(Path file) throws IOException {
        try {
            return LibC.C.open(file.toString(), LibC.O_RDWR | LibC.O_CREAT | LibC.O_NOFOLLOW | LibC.O_CLOEXEC, 0644);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == LibC.EACCES || e.getErrorCode() == LibC.ELOOP) {
                throw new DestinationException(file + ": the destination's lock is " + (e.getErrorCode() == LibC.ELOOP
                        ? "a symbolic link" : "a file this user may not write") + " (another user's?): remove it, or"
                        + " choose another destination");
            }
            throw new IOException(file + ": open for the destination's lock: errno " + e.getErrorCode(), e);
        }
    }

    /** The lock file must be this user's: one another user made could be swapped or held from outside. */
    private static void checkOwner(Path file) throws IOException {
        java.nio.file.attribute.UserPrincipal me = ProcessUser.principal();
        java.nio.file.attribute.UserPrincipal owner = Files.getOwner(file, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (me != null && !me.equals(owner)) {
            throw new DestinationException(file + ": the destination's lock belongs to " + owner.getName()
                    + ", not to this process's user: remove it, or choose another destination");
        }
    }

    /**
     * Whether the run holding the lock is ending: its process is gone, yet the lock is held. A process's locks go
     * with it, so this is a command an agent runs for a launcher that was killed: it winds down as soon as the agent
     * sees the launcher gone, and a rerun at once waits for that rather than being refused.
     */
    private static boolean windingDown(String holder) {
        if (!holder.startsWith("pid ")) {
            return false;
        }
        int end = holder.indexOf(',');
        try {
            long pid = Long.parseLong(holder.substring(4, end < 0 ? holder.length() : end));
            return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while a stopped run let go of the destination");
        }
    }

    private static String holder(Path file) {
        byte[] text = bytesAt(file);
        String s = text == null ? "" : new String(text, 0, Math.min(text.length, MAX_HOLDER_TEXT), StandardCharsets.UTF_8)
                .strip();
        return s.isEmpty() ? "another run" : s;
    }

    private static byte[] bytesAt(Path file) {
        try {
            if (Files.size(file) > MAX_HOLDER_TEXT * 4) {
                return null; // not a lock file a run wrote
            }
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            log.debug("reading {}: {}", file, e.toString());
            return null;
        }
    }

    /** Another run is writing to the destination. */
    public static final class DestinationBusyException extends DestinationException {
        DestinationBusyException(Path file, String holder) {
            super("another run is writing to this destination (" + holder + "; its lock: " + file
                    + "): wait for it to end, or choose another -o");
        }
    }
}
