package io.fsp.server.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A user's root directory, the jail for every path the user names. Resolution walks one segment at a time
 * from the real root: a symbolic link is followed only when its real target is still inside the root, so
 * neither {@code ..}, nor absolute paths (they start at this root), nor links reach anything outside.
 *
 * <p>The check and the use are apart in time, so nothing is used by path: {@link #target} and {@link #entry}
 * open the checked real path again from the root's handle, one directory handle at a time with links not
 * followed ({@link DirectoryHandle}). A link swapped into any place of that path meanwhile makes the
 * operation fail; it can never lead outside the root.
 */
public final class UserRoot {
    private final Path root;

    /** @param root an existing directory; its real path (links resolved) becomes the jail */
    public UserRoot(Path root) throws IOException {
        Path real = root.toRealPath();
        if (!Files.isDirectory(real)) {
            throw new NoSuchFileException(root.toString(), null, "not a directory");
        }
        this.root = real;
    }

    public Path realRoot() {
        return root;
    }

    /** The real path of {@code path}, following links that stay inside the root. It may not exist. */
    public Path resolve(FtpPath path) throws IOException {
        Path real = root;
        for (String segment : path.segments()) {
            real = step(real, segment, path);
        }
        return real;
    }

    /** A directory held open and the name of an entry in it; closing it closes the directory. */
    public record Entry(DirectoryHandle dir, String name) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            dir.close();
        }
    }

    /**
     * What {@code path} names once a link in its last segment is followed (inside the root): the directory
     * holding it, opened from the root's handle, and its name there. The root itself is {@code "."} in itself.
     */
    public Entry target(FtpPath path) throws IOException {
        Path real = resolve(path);
        if (real.equals(root)) {
            return new Entry(open(root), ".");
        }
        return new Entry(open(real.getParent()), real.getFileName().toString());
    }

    /** The entry {@code path} names itself, a link not followed (DELE, RMD, MKD, RNFR, RNTO); not the root. */
    public Entry entry(FtpPath path) throws IOException {
        if (path.isRoot()) {
            throw new java.nio.file.AccessDeniedException("/");
        }
        return new Entry(open(resolve(path.parent())), path.name());
    }

    /**
     * Opens the plain file {@code path} names for reading, through handles from the root (RETR, HASH, ASCII
     * SIZE); its directory is closed again, the file stays open.
     */
    public FileChannel openRead(FtpPath path) throws IOException {
        try (Entry target = target(path)) {
            return target.dir().readFile(target.name(), null);
        }
    }

    /** The attributes of what {@code path} names (a link into the root followed), read through handles. */
    public BasicFileAttributes attributes(FtpPath path) throws IOException {
        try (Entry e = target(path)) {
            return e.dir().existing(e.name());
        }
    }

    /** The directory {@code path} names, opened from the root's handle. */
    public DirectoryHandle directory(FtpPath path) throws IOException {
        return open(resolve(path));
    }

    /** The root directory, opened. */
    public DirectoryHandle openRoot() throws IOException {
        return DirectoryHandle.open(root);
    }

    /**
     * Opens {@code real}, a directory's real path inside the root, from the root's handle one segment at a
     * time; a link or anything but a directory in any place of it fails the walk.
     */
    public DirectoryHandle open(Path real) throws IOException {
        if (!real.startsWith(root)) {
            throw new PathEscapeException(real.toString());
        }
        DirectoryHandle dir = openRoot();
        try {
            if (!real.equals(root)) {
                for (Path segment : root.relativize(real)) {
                    DirectoryHandle next = dir.directory(segment.toString());
                    dir.close();
                    dir = next;
                }
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /** Whether {@code real} (a path from this root's resolution) lies inside the root. */
    public boolean contains(Path real) {
        return real.normalize().startsWith(root);
    }

    private Path step(Path dir, String segment, FtpPath whole) throws IOException {
        Path next = dir.resolve(segment);
        if (!Files.isSymbolicLink(next)) {
            return next;
        }
        Path target;
        try {
            target = next.toRealPath();
        } catch (NoSuchFileException e) {
            // A dangling link: whatever it names is not there for this user.
            throw new NoSuchFileException(whole.toString());
        }
        if (!target.startsWith(root)) {
            throw new PathEscapeException(whole.toString());
        }
        return target;
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
