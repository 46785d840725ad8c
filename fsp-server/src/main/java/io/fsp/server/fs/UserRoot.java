package io.fsp.server.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A user's root directory, the jail for every path the user names. Resolution walks one segment at a time
 * from the real root: a symbolic link is followed only when its real target is still inside the root, so
 * neither {@code ..}, nor absolute paths (they start at this root), nor links reach anything outside.
 *
 * <p>A link swapped in between this check and the use of the path is the caller's remaining risk;
 * transfers open the resolved real path, which contains no links up to its last segment.
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

    /**
     * The real path of the directory entry {@code path} names, without following a link in its last
     * segment: DELE, RMD and RNFR act on a link itself, never on what it points to.
     */
    public Path resolveEntry(FtpPath path) throws IOException {
        if (path.isRoot()) {
            return root;
        }
        return resolve(path.parent()).resolve(path.name());
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

    /** Whether {@code real} exists as a regular file, not following a final link (it was resolved already). */
    public static boolean isRegularFile(Path real) {
        return Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
