package io.fsp.client.collect;

import io.fsp.client.write.DestinationException;
import io.fsp.client.write.DestinationLock;
import io.fsp.client.write.DestinationTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Where a collection's files go: {@code -o}, or the file in it when it names a directory and the server sends a file;
 * the files there ({@link DestinationFiles}), the journal and manifest beside them ({@link ResumeManifest}), and the
 * lock one run holds on them ({@link DestinationLock}).
 */
final class CollectDestination implements AutoCloseable {
    /** Its destination changes once, when {@code -o} names a directory and the server sends a file ({@link #intoDirectory}). */
    private CollectOptions options;
    /** Null when the files go into a tree of the server's user ({@code fsp transfer}). */
    private final DestinationTree tree;
    private ResumeManifest manifest;
    private DestinationFiles files;
    /** The destination's lock once taken, held until the run ends. */
    private DestinationLock lock;
    /** Who the lock names as its holder. */
    private long holderPid = ProcessHandle.current().pid();

    CollectDestination(CollectOptions options, DestinationTree tree) {
        this.options = options;
        this.tree = tree;
        this.manifest = new ResumeManifest(options);
        this.files = new DestinationFiles(options.destination(), options.directWrites(), tree);
    }

    ResumeManifest manifest() {
        return manifest;
    }

    DestinationFiles files() {
        return files;
    }

    /** Names {@code pid} as the lock's holder, not this JVM. */
    void heldBy(long pid) {
        holderPid = pid;
    }

    /**
     * The server said what it sends, a file or a tree ({@code directory}), so where it goes: checked, and locked before
     * anything is written there. A recorded transfer's file goes where {@code -o} says.
     */
    void transfer(boolean directory, boolean recorded) throws IOException {
        Path destination = options.destination();
        if (!directory && !recorded && tree == null && Files.isDirectory(destination)) {
            intoDirectory();
        } else if (directory && tree == null && Files.exists(destination) && !Files.isDirectory(destination)) {
            throw new DestinationException(destination + " is not a directory: a tree (" + options.remotePath()
                    + ") needs one; choose another -o");
        }
        lock();
        files.directory(directory);
    }

    /** One run at a time writes to the destination. */
    private void lock() throws IOException {
        if (lock == null) {
            lock = DestinationLock.take(manifest.lockFile(), "collecting " + options.remotePath() + " from "
                    + options.server(), holderPid);
        }
    }

    /**
     * The server sends a file and {@code -o} names a directory: the file goes into it under its own name, as {@code cp}
     * and {@code scp} put it ({@code fsp get fsp://host/data/a.bin -o .}). Nothing was written yet. The journal goes
     * beside the file, where a rerun of the same command finds it ({@link #heldClaimer}).
     */
    private void intoDirectory() throws IOException {
        Path file = fileInDestination();
        if (file == null) {
            throw new DestinationException(options.destination() + " is a directory, and " + options.remotePath()
                    + " names no file to put in it");
        }
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new DestinationException(file + " is a directory: the file " + file.getFileName()
                    + " cannot take its place; choose another -o");
        }
        options = options.withDestination(file);
        manifest = new ResumeManifest(options);
        files = new DestinationFiles(options.destination(), options.directWrites(), null);
    }

    /** Where the remote path's file goes when {@code -o} is a directory (null: the path names no file). */
    private Path fileInDestination() {
        String path = options.remotePath();
        String name = path.substring(path.lastIndexOf('/') + 1);
        return name.isEmpty() || name.equals(".") || name.equals("..") ? null : options.destination().resolve(name);
    }

    /**
     * Whose journal tells the server what an earlier run holds: {@code -o}'s, or, when {@code -o} is a directory and an
     * earlier run put the remote file in it ({@link #intoDirectory}), that file's.
     */
    ResumeManifest heldClaimer() {
        Path file = tree == null && Files.isDirectory(options.destination()) ? fileInDestination() : null;
        if (file != null) {
            ResumeManifest inside = new ResumeManifest(options.withDestination(file));
            if (Files.exists(inside.manifestFile())) {
                return inside;
            }
        }
        return manifest;
    }

    /** Lets go of the lock, if it was taken. */
    @Override
    public void close() throws IOException {
        if (lock != null) {
            lock.close();
        }
    }
}
