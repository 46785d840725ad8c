package io.fsp.server.fs;

import io.fsp.client.write.ProcessUser;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Iterator;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A directory held open. Every entry in it is reached through this handle ({@code openat}, {@code fstatat},
 * {@code unlinkat}, {@code renameat}), never by a path, and a symbolic link in an entry's place is never
 * followed: a directory swapped for a link after a path was checked makes the operation fail, it cannot lead
 * outside. Only directories and regular files are ever opened: a FIFO, socket or device is refused from its
 * {@code lstat} before {@code open}, and the entry is looked at again after, so an entry swapped in between
 * is refused too.
 *
 * <p>What remains: a FIFO put in place during the microseconds between that {@code lstat} and a read-only
 * {@code open} can hold the opening thread until a writer opens it (Java has no {@code O_NONBLOCK} for
 * files; writes open read-write, which never waits on a FIFO). It takes a local account that can write to
 * that very directory.
 */
public final class DirectoryHandle implements AutoCloseable {
    private static final Set<OpenOption> READ = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    private final SecureDirectoryStream<Path> handle;
    /** The real path it had when opened: for messages and for what only a path can do (MKD). */
    private final Path path;

    private DirectoryHandle(SecureDirectoryStream<Path> handle, Path path) {
        this.handle = handle;
        this.path = path;
    }

    /** Opens {@code dir} by its path, links followed: only for a trusted path such as a user's root. */
    static DirectoryHandle open(Path dir) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
            stream.close();
            throw new FileSystemException(dir.toString(), null,
                    "this file system cannot open files relative to a directory (no SecureDirectoryStream)");
        }
        return new DirectoryHandle(secure, dir);
    }

    /** The real path this directory had when it was opened. */
    public Path path() {
        return path;
    }

    /**
     * The attributes of entry {@code name} itself (a link is not followed), POSIX ones where the file system
     * has them; empty if there is none.
     */
    public Optional<BasicFileAttributes> attributes(String name) throws IOException {
        try {
            PosixFileAttributeView posix = handle.getFileAttributeView(entry(name), PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            return Optional.of(posix != null ? posix.readAttributes() : handle.getFileAttributeView(entry(name),
                    BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The attributes of entry {@code name}, which must exist. */
    public BasicFileAttributes existing(String name) throws IOException {
        return attributes(name).orElseThrow(() -> new NoSuchFileException(path.resolve(name).toString()));
    }

    /** Opens the sub-directory {@code name}; a link there is refused, not followed. */
    public DirectoryHandle directory(String name) throws IOException {
        BasicFileAttributes before = existing(name);
        if (!before.isDirectory()) {
            throw new NotDirectoryException(path.resolve(name).toString());
        }
        SecureDirectoryStream<Path> child;
        try {
            child = handle.newDirectoryStream(entry(name), LinkOption.NOFOLLOW_LINKS);
        } catch (FileSystemException e) {
            throw changed(name); // a link (ELOOP) or a file (ENOTDIR) took the directory's place
        }
        DirectoryHandle opened = new DirectoryHandle(child, path.resolve(name).normalize());
        try {
            BasicFileAttributes after = opened.self();
            if (!after.isDirectory() || !Objects.equals(before.fileKey(), after.fileKey())) {
                throw changed(name);
            }
            return opened;
        } catch (IOException | RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    /**
     * Opens the regular file {@code name} for reading. {@code expected}, if not null, is the file's
     * {@link BasicFileAttributes#fileKey()} from an earlier look: another file under that name is refused.
     */
    public FileChannel readFile(String name, Object expected) throws IOException {
        BasicFileAttributes before = regular(name, existing(name));
        if (expected != null && !expected.equals(before.fileKey())) {
            throw changed(name);
        }
        return checked(name, before, channel(name, READ));
    }

    /**
     * Opens the regular file {@code name} for writing, creating it if there is none. It is opened
     * read-write where the server may read it, because {@code open} for writing alone would wait for a
     * reader if a FIFO were swapped in.
     */
    public FileChannel writeFile(String name) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Optional<BasicFileAttributes> before = attributes(name);
            if (before.isEmpty()) {
                try {
                    return createFile(name);
                } catch (FileAlreadyExistsException e) {
                    if (attempt >= 3) {
                        throw changed(name);
                    }
                    continue; // created meanwhile: open what is there now
                }
            }
            regular(name, before.get());
            FileChannel file;
            try {
                file = channel(name, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
            } catch (AccessDeniedException e) {
                file = channel(name, Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)); // a write-only file
            }
            return checked(name, before.get(), file);
        }
    }

    /** Creates the regular file {@code name} and opens it for writing; fails if anything has that name. */
    public FileChannel createFile(String name) throws IOException {
        // O_CREAT|O_EXCL never opens what is already there, a link, a FIFO or anything else.
        return channel(name, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
    }

    /** Deletes the entry {@code name}, a file or a link itself; never a directory. */
    public void deleteFile(String name) throws IOException {
        if (existing(name).isDirectory()) {
            throw new FileSystemException(path.resolve(name).toString(), null, "is a directory");
        }
        handle.deleteFile(entry(name));
    }

    /** Deletes the entry {@code name} if there is one; for clean-up. */
    public void deleteIfExists(String name) throws IOException {
        try {
            handle.deleteFile(entry(name));
        } catch (NoSuchFileException e) {
            // already gone
        }
    }

    /** Removes the empty directory {@code name}; a link there is not followed. */
    public void deleteDirectory(String name) throws IOException {
        if (!existing(name).isDirectory()) {
            throw new NotDirectoryException(path.resolve(name).toString());
        }
        handle.deleteDirectory(entry(name));
    }

    /** Renames entry {@code name} (a link itself, if it is one) to {@code newName} in {@code target}, as rename(2). */
    public void move(String name, DirectoryHandle target, String newName) throws IOException {
        handle.move(entry(name), target.handle, entry(newName));
    }

    /**
     * Creates the directory {@code name}. Java has no {@code mkdirat}: the directory is made by path under a
     * random hidden name in {@code staging} (a user's root, whose path is trusted), then renamed into place
     * through the handles, so it ends up here or nowhere. Across file systems, or when the root is not
     * writable, it is staged beside its place instead, by this directory's path.
     */
    public void createDirectory(String name, DirectoryHandle staging) throws IOException {
        try {
            createDirectoryVia(name, staging);
        } catch (AtomicMoveNotSupportedException | AccessDeniedException e) {
            createDirectoryVia(name, this); // another file system, or a root the server may not write to
        }
    }

    private void createDirectoryVia(String name, DirectoryHandle staging) throws IOException {
        if (attributes(name).isPresent()) {
            throw new FileAlreadyExistsException(path.resolve(name).toString());
        }
        String temporary = UploadNames.partialName("mkdir");
        Files.createDirectory(staging.path.resolve(temporary));
        try {
            if (attributes(name).isPresent()) { // rename(2) would replace an empty directory made meanwhile
                throw new FileAlreadyExistsException(path.resolve(name).toString());
            }
            staging.move(temporary, this, name);
        } catch (IOException | RuntimeException e) {
            try {
                staging.handle.deleteDirectory(entry(temporary));
            } catch (IOException ignored) {
                // a partial name: hidden from listings and never served
            }
            throw e;
        }
    }

    /** The names in this directory, read as they are iterated; a handle can be listed once. */
    public Iterable<String> names() {
        return () -> {
            Iterator<Path> entries = handle.iterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public String next() {
                    return entries.next().getFileName().toString();
                }
            };
        };
    }

    /** Writes this directory's entries to stable storage (fsync), after a file was renamed into it. */
    public void sync() throws IOException {
        try (FileChannel self = channel(".", READ)) {
            self.force(true);
        }
    }

    /** The attributes of this directory itself (fstat of the handle). */
    public BasicFileAttributes self() throws IOException {
        return handle.getFileAttributeView(BasicFileAttributeView.class).readAttributes();
    }

    /**
     * Makes this directory its owner's alone ({@code fchmod 0700} through the handle), after checking that it is this
     * process's user's and empty: a private place no other local user can enter, nor put or swap a file in.
     *
     * @throws AccessDeniedException if it belongs to another user or holds anything
     */
    public void makePrivate() throws IOException {
        PosixFileAttributeView view = handle.getFileAttributeView(PosixFileAttributeView.class);
        if (view == null) {
            throw new FileSystemException(path.toString(), null, "this file system has no owners and permissions");
        }
        UserPrincipal me = ProcessUser.principal();
        if (me != null && !me.equals(view.readAttributes().owner())) {
            throw new AccessDeniedException(path.toString(), null, "belongs to " + view.readAttributes().owner().getName()
                    + " (expected: a directory this server made)");
        }
        if (names().iterator().hasNext()) { // this handle's one listing
            throw new AccessDeniedException(path.toString(), null, "not empty (expected: a directory this server made)");
        }
        view.setPermissions(PosixFilePermissions.fromString("rwx------"));
    }

    @Override
    public void close() throws IOException {
        handle.close();
    }

    private FileChannel channel(String name, Set<OpenOption> options) throws IOException {
        SeekableByteChannel ch = handle.newByteChannel(entry(name), new HashSet<>(options));
        if (ch instanceof FileChannel f) {
            return f;
        }
        ch.close();
        throw new FileSystemException(path.resolve(name).toString(), null, "not opened as a file channel");
    }

    /** After open: the entry must still be the regular file seen before, or the channel is closed and refused. */
    private FileChannel checked(String name, BasicFileAttributes before, FileChannel file) throws IOException {
        try {
            Optional<BasicFileAttributes> after = attributes(name);
            if (after.isEmpty() || !after.get().isRegularFile() || !Objects.equals(before.fileKey(), after.get().fileKey())) {
                throw changed(name);
            }
            return file;
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    private BasicFileAttributes regular(String name, BasicFileAttributes a) throws IOException {
        if (!a.isRegularFile()) {
            throw new NotRegularFileException(path.resolve(name).toString(), a.isDirectory() ? "a directory"
                    : a.isSymbolicLink() ? "a symbolic link" : "a FIFO, socket or device");
        }
        return a;
    }

    private NoSuchFileException changed(String name) {
        return new NoSuchFileException(path.resolve(name).toString(), null, "changed while it was being opened");
    }

    /** {@code name} as a path relative to the handle; it must be a single segment. */
    private static Path entry(String name) {
        if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0 || name.equals("..")) {
            throw new IllegalArgumentException("name: '" + name + "' (expected: one path segment)");
        }
        return Path.of(name);
    }
}
