package io.fsp.server.collect;

import io.fsp.client.write.DestinationTree;
import io.fsp.server.fs.DirectoryHandle;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * A destination inside a user's root, reached only through directory handles: every name is walked from the
 * destination directory's handle one segment at a time with links never followed, and the file or directory
 * is acted on through its directory's handle (docs/protocol.md §1.3). A directory swapped for a link while a
 * collection runs makes the next operation there fail; it cannot lead outside the root.
 */
public final class HandleTree implements DestinationTree, AutoCloseable {
    private final DirectoryHandle base;
    /** The user's root: where a new directory is staged before it is renamed into place (Java has no mkdirat). */
    private final DirectoryHandle staging;

    /** Takes ownership of both handles. */
    public HandleTree(DirectoryHandle base, DirectoryHandle staging) {
        this.base = base;
        this.staging = staging;
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

    @Override
    public void createDirectories(String name) throws IOException {
        if (name.isEmpty()) {
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

    @Override
    public void replace(String from, String to) throws IOException {
        try (Walk w = walk(DestinationTree.parent(from))) {
            w.dir().move(DestinationTree.last(from), w.dir(), DestinationTree.last(to));
        }
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
