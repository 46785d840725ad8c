package io.fsp.server.collect;

import io.fsp.client.write.DestinationTree;
import io.fsp.server.fs.DirectoryHandle;
import io.fsp.server.fs.UploadNames;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A destination inside a user's root, reached only through directory handles: every name is walked from the
 * destination directory's handle one segment at a time with links never followed, and the file or directory
 * is acted on through its directory's handle (docs/protocol.md §1.3). A directory swapped for a link while a
 * collection runs makes the next operation there fail; it cannot lead outside the root.
 *
 * <p>Each file is written inside a private directory of its own beside its place, {@code .NAME.fsp-part-RANDOM/NAME}
 * ({@link #temporaryName}): made by this server, mode 0700, its identity (inode) noted when made and checked every
 * time it is entered again. No FTP command can name it (a reserved name), no other local user can enter it, and the
 * file renamed into place is reached through that checked directory: the file this collection wrote and verified,
 * never one swapped in under its name.
 */
public final class HandleTree implements DestinationTree, AutoCloseable {
    /** A file's private directory: its relative name and, once made, its identity. */
    private static final class Staged {
        final String dir;
        volatile Object key;

        Staged(String dir) {
            this.dir = dir;
        }
    }

    /** The private directory of each file being written, by the file's relative name. */
    private final Map<String, Staged> staged = new ConcurrentHashMap<>();
    /** The same by the private directory's relative name. */
    private final Map<String, Staged> stagedDirs = new ConcurrentHashMap<>();
    private final DirectoryHandle base;
    /** The user's root: where a new directory is staged before it is renamed into place (Java has no mkdirat). */
    private final DirectoryHandle staging;

    /** Where each private directory is noted before it is made, for {@link Leftovers} to sweep after a crash. */
    public interface Ledger {
        Ledger NONE = dir -> { };

        void made(String dir) throws IOException;
    }

    private final Ledger ledger;

    /** Takes ownership of both handles. */
    public HandleTree(DirectoryHandle base, DirectoryHandle staging) {
        this(base, staging, Ledger.NONE);
    }

    /** Takes ownership of both handles; {@code ledger} is told each private directory's name before it is made. */
    public HandleTree(DirectoryHandle base, DirectoryHandle staging, Ledger ledger) {
        this.base = base;
        this.staging = staging;
        this.ledger = ledger;
    }

    @Override
    public Path root() {
        return base.path();
    }

    @Override
    public FileChannel openFile(String name) throws IOException {
        try (Walk w = walk(DestinationTree.parent(name))) {
            return w.dir().writeFile(DestinationTree.last(name));
        }
    }

    @Override
    public FileChannel openDirect(String name) throws IOException {
        throw new FileSystemException(name, null, "O_DIRECT is not offered through directory handles");
    }

    @Override
    public boolean exists(String name) throws IOException {
        try (Walk w = walk(DestinationTree.parent(name))) {
            return w.dir().attributes(DestinationTree.last(name)).isPresent();
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** {@code .NAME.fsp-part-RANDOM/NAME} beside {@code file}: a new random directory per collection, made on first use. */
    @Override
    public String temporaryName(String file) {
        Staged s = staged.computeIfAbsent(file, f -> {
            Staged n = new Staged(DestinationTree.child(DestinationTree.parent(f),
                    UploadNames.partialName(DestinationTree.last(f))));
            stagedDirs.put(n.dir, n);
            return n;
        });
        return DestinationTree.child(s.dir, DestinationTree.last(file));
    }

    /**
     * Removes the temporary file of {@code file} and its private directory, if they were made: for a collection
     * that failed.
     */
    public void discardTemporary(String file) throws IOException {
        Staged s = staged.remove(file);
        if (s == null || s.key == null) {
            return;
        }
        stagedDirs.remove(s.dir);
        try (Walk parent = walk(DestinationTree.parent(s.dir)); DirectoryHandle own = entered(parent.dir(), s)) {
            own.deleteIfExists(DestinationTree.last(file));
            parent.dir().deleteDirectory(DestinationTree.last(s.dir));
        } catch (NoSuchFileException e) {
            // gone already
        }
    }

    /** {@link #discardTemporary} of every file not renamed into place; tries them all, then throws the first failure. */
    public void discardAllTemporary() throws IOException {
        IOException first = null;
        for (String file : List.copyOf(staged.keySet())) {
            try {
                discardTemporary(file);
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void createDirectories(String name) throws IOException {
        if (name.isEmpty()) {
            return;
        }
        Staged own = stagedDirs.get(name);
        if (own != null) {
            createPrivate(own);
            return;
        }
        DirectoryHandle dir = base;
        try {
            for (String segment : name.split("/")) {
                var a = dir.attributes(segment);
                if (a.isEmpty()) {
                    try {
                        dir.createDirectory(segment, staging);
                    } catch (FileAlreadyExistsException e) {
                        // made meanwhile: opened below like any directory, or refused if it is none
                    }
                } else if (!a.get().isDirectory()) {
                    throw new NotDirectoryException(dir.path().resolve(segment) + " (expected: a directory, found "
                            + (a.get().isSymbolicLink() ? "a symbolic link" : "a file") + ")");
                }
                dir = step(dir, segment);
            }
        } finally {
            if (dir != base) {
                dir.close();
            }
        }
    }

    /**
     * Renames {@code from} to {@code to}. A temporary file is moved out of its private directory, entered through the
     * checked handle (the very file written, whatever another process put beside it), and the directory removed.
     */
    @Override
    public void replace(String from, String to) throws IOException {
        Staged s = stagedDirs.get(DestinationTree.parent(from));
        if (s == null) {
            try (Walk w = walk(DestinationTree.parent(from))) {
                w.dir().move(DestinationTree.last(from), w.dir(), DestinationTree.last(to));
            }
            return;
        }
        try (Walk parent = walk(DestinationTree.parent(to)); DirectoryHandle own = entered(parent.dir(), s)) {
            own.move(DestinationTree.last(from), parent.dir(), DestinationTree.last(to));
            parent.dir().deleteDirectory(DestinationTree.last(s.dir));
        }
        staged.remove(to);
        stagedDirs.remove(s.dir);
    }

    /** Makes the private directory {@code s} (its parents exist), owner-only, and notes its identity. */
    private void createPrivate(Staged s) throws IOException {
        createDirectories(DestinationTree.parent(s.dir));
        try (Walk parent = walk(DestinationTree.parent(s.dir))) {
            String name = DestinationTree.last(s.dir);
            ledger.made(s.dir);
            parent.dir().createDirectory(name, staging);
            try (DirectoryHandle own = parent.dir().directory(name)) {
                own.makePrivate(); // a directory swapped in meanwhile is another user's, or not empty: refused
                s.key = own.self().fileKey();
            }
        }
    }

    /** Opens the private directory {@code s} in {@code parent}: the one made, or it fails. */
    private static DirectoryHandle entered(DirectoryHandle parent, Staged s) throws IOException {
        String name = DestinationTree.last(s.dir);
        if (s.key == null) {
            throw new NoSuchFileException(s.dir, null, "not made yet");
        }
        DirectoryHandle own = parent.directory(name);
        if (!s.key.equals(own.self().fileKey())) { // fstat of the handle: what was opened, not what the name is now
            own.close();
            // named relative to the destination: the message reaches the FTP client, which never sees real paths
            throw new NoSuchFileException(s.dir, null, "another directory took the place of this collection's"
                    + " temporary directory");
        }
        return own;
    }

    @Override
    public void deleteIfExists(String name) throws IOException {
        try (Walk w = walk(DestinationTree.parent(name))) {
            w.dir().deleteIfExists(DestinationTree.last(name));
        } catch (NoSuchFileException e) {
            // its directory is gone: so is the file
        }
    }

    @Override
    public void sync(String name) throws IOException {
        try (Walk w = walk(name)) {
            w.dir().sync();
        }
    }

    /**
     * The directory {@code name} ({@code ""}: the base), walked from the base's handle one segment at a time, each
     * handle closed once the next is open; closing the walk closes the last unless it is the base.
     */
    private Walk walk(String name) throws IOException {
        Staged own = stagedDirs.get(name);
        if (own != null) {
            try (Walk parent = walk(DestinationTree.parent(name))) {
                return new Walk(entered(parent.dir(), own), true);
            }
        }
        DirectoryHandle dir = base;
        try {
            if (!name.isEmpty()) {
                for (String segment : name.split("/")) {
                    dir = step(dir, segment);
                }
            }
            return new Walk(dir, dir != base);
        } catch (IOException | RuntimeException e) {
            if (dir != base) {
                dir.close();
            }
            throw e;
        }
    }

    /** Opens {@code segment} in {@code dir}, then closes {@code dir} unless it is the base. */
    private DirectoryHandle step(DirectoryHandle dir, String segment) throws IOException {
        DirectoryHandle next = dir.directory(segment);
        if (dir != base) {
            try {
                dir.close();
            } catch (IOException e) {
                next.close();
                throw e;
            }
        }
        return next;
    }

    private record Walk(DirectoryHandle dir, boolean owned) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            if (owned) {
                dir.close();
            }
        }
    }

    @Override
    public void close() throws IOException {
        try (staging) {
            base.close();
        }
    }
}
