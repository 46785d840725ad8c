package io.fsp.client.write;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A destination on the client's own disk, reached by path: each segment is looked at before use, a symbolic
 * link is refused, and a directory made is checked to be still under the root. The one who could swap a link
 * in between is the client's own user.
 */
public final class PathTree implements DestinationTree {
    private final Path root;
    /**
     * Directories already looked at segment by segment: a name in one of them needs only its last segment looked
     * at, so a tree of many files costs one lookup per file, not one per segment.
     */
    private final Set<String> checkedDirectories = ConcurrentHashMap.newKeySet();

    /** Uses {@code root}, creating it if it is missing. */
    public PathTree(Path root) throws IOException {
        Files.createDirectories(root);
        this.root = root.toRealPath();
    }

    @Override
    public Path root() {
        return root;
    }

    private Path resolve(String name) throws UnsafePathException {
        return resolve(name, true);
    }

    /** @param checkLast whether the last segment is looked at too (not when it is opened with NOFOLLOW_LINKS) */
    private Path resolve(String name, boolean checkLast) throws UnsafePathException {
        Path p = root;
        if (!name.isEmpty()) {
            String parent = DestinationTree.parent(name);
            String[] segments = checkedDirectories.contains(parent) ? new String[] {DestinationTree.last(name)} : name.split("/");
            if (segments.length == 1) {
                p = p.resolve(parent);
            }
            for (int i = 0; i < segments.length; i++) {
                p = p.resolve(segments[i]);
                if ((checkLast || i < segments.length - 1) && Files.isSymbolicLink(p)) {
                    throw new UnsafePathException(name, "goes through a symbolic link (expected: plain directories and files)");
                }
            }
            checkedDirectories.add(parent);
        }
        if (!p.normalize().startsWith(root)) {
            throw new UnsafePathException(name, "leaves the destination (expected: a relative path under it)");
        }
        return p;
    }

    @Override
    public FileChannel openFile(String name) throws IOException {
        // NOFOLLOW_LINKS: a symbolic link planted at the final name is refused, not followed.
        return FileChannel.open(resolve(name, false), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public FileChannel openDirect(String name) throws IOException {
        return FileChannel.open(resolve(name), StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS,
                com.sun.nio.file.ExtendedOpenOption.DIRECT);
    }

    @Override
    public boolean exists(String name) throws IOException {
        return Files.exists(resolve(name), LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public Set<String> names(String dir) throws IOException {
        Path p = resolve(dir);
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return Set.of();
        }
        Set<String> names = new HashSet<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
            entries.forEach(e -> names.add(e.getFileName().toString()));
        }
        return names;
    }

    @Override
    public Long device(String name) throws IOException {
        return (Long) Files.getAttribute(resolve(name, false), "unix:dev", LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public void createDirectories(String name) throws IOException {
        if (name.isEmpty()) {
            return;
        }
        Path dir = resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new UnsafePathException(name, "exists and is not a directory");
        }
        // Re-check after creation: a link could have been planted between resolve and create.
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || !dir.toRealPath().startsWith(root)) {
            throw new UnsafePathException(name, "leaves the destination (expected: a relative path under it)");
        }
    }

    @Override
    public void replace(String from, String to) throws IOException {
        // rename(2) neither follows a link at either name: it moves the link itself, or replaces it
        Files.move(resolve(from, false), resolve(to, false), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void deleteIfExists(String name) throws IOException {
        Files.deleteIfExists(resolve(name));
    }

    @Override
    public void sync(String name) throws IOException {
        try (FileChannel ch = FileChannel.open(resolve(name), StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
