package io.fsp.relay.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One relay per store directory. At start a store restores the retained transfers an earlier run left and deletes
 * everything else there; a second relay started on the directory of a running one (a service and a hand-started
 * copy) would so delete the first one's spilled blocks and take its retained transfers as its own, and the blocks an
 * evacuation left there would be gone. So a store holds a lock on {@code .lock} in its directory while it is open:
 * the kernel gives it back when the process ends, however it ends, so a relay killed midway blocks nothing.
 *
 * <p>A POSIX lock ({@link FileChannel#tryLock}) is dropped when its process closes any descriptor of the file: the
 * store never opens this file otherwise (its name matches none the store writes or restores).
 */
final class StoreLock implements AutoCloseable {
    static final String FILE_NAME = ".lock";

    private final FileChannel channel;

    private StoreLock(FileChannel channel) {
        this.channel = channel;
    }

    /** Locks {@code directory} for this process, or says which process holds it. */
    static StoreLock take(Path directory) throws IOException {
        Path file = directory.resolve(FILE_NAME);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        boolean kept = false;
        try {
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) { // a store of this same process holds it
                lock = null;
            }
            if (lock == null) {
                ByteBuffer holder = ByteBuffer.allocate(64);
                ch.read(holder, 0);
                String who = new String(holder.array(), 0, holder.position(), StandardCharsets.US_ASCII).strip();
                throw new IOException(directory + " is the store of a relay that runs (" + (who.isEmpty() ? "another process"
                        : who) + "; its lock: " + file + "): each relay needs a store of its own (--store)");
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            kept = true;
            return new StoreLock(ch);
        } finally {
            if (!kept) {
                ch.close();
            }
        }
    }

    /** Gives the directory back (the file stays: removing it would race with a relay that opened it). */
    @Override
    public void close() throws IOException {
        channel.close();
    }
}
