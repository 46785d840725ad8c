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
import java.util.ArrayList;
import java.util.List;

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
        List<DirectoryHandle> opened = new ArrayList<>();
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
                dir = dir.directory(segment);
                opened.add(dir);
            }
        } finally {
            closeAll(opened);
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

    /** The directory {@code name} ({@code ""}: the base), walked from the base's handle; closing closes what was opened. */
    private Walk walk(String name) throws IOException {
        List<DirectoryHandle> opened = new ArrayList<>();
        DirectoryHandle dir = base;
        try {
            if (!name.isEmpty()) {
                for (String segment : name.split("/")) {
                    dir = dir.directory(segment);
                    opened.add(dir);
                }
            }
            return new Walk(dir, opened);
        } catch (IOException | RuntimeException e) {
            closeAll(opened);
            throw e;
        }
    }

    private record Walk(DirectoryHandle dir, List<DirectoryHandle> opened) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            closeAll(opened);
        }
    }

    private static void closeAll(List<DirectoryHandle> handles) throws IOException {
        IOException first = null;
        for (DirectoryHandle h : handles) {
            try {
                h.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void close() throws IOException {
        try (staging) {
            base.close();
        }
    }
}
