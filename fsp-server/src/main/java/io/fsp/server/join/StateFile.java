package io.fsp.server.join;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A small text file of the state directory that two processes change (the running server, and {@code fsp-server
 * invite} or {@code relays}): every change holds a lock on {@code FILE.lock} while it reads and rewrites, and the new
 * text replaces the old by a rename, so a reader sees the whole old file or the whole new one. Mode 0600: it holds
 * what lets a relay join.
 */
final class StateFile {
    private final Path path;

    StateFile(Path path) {
        this.path = path;
    }

    Path path() {
        return path;
    }

    /**
     * Gives {@code file} to the owner of the state directory when this process may (root running {@code fsp-server
     * invite} for a server that runs as its own user), so that the server can still read and lock it.
     */
    private void ownedLikeDirectory(Path file) {
        try {
            java.nio.file.attribute.UserPrincipal owner = Files.getOwner(path.getParent());
            if (!owner.equals(Files.getOwner(file))) {
                Files.setOwner(file, owner);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // not root: the file is this user's, as the directory is
        }
    }

    /** The lines (none when there is no file yet). */
    List<String> read() throws IOException {
        try {
            return Files.readAllLines(path, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        }
    }

    /** Replaces the lines by {@code change} of them, under the lock; returns the new lines. */
    List<String> update(UnaryOperator<List<String>> change) throws IOException {
        Files.createDirectories(path.getParent());
        Path lockFile = path.resolveSibling(path.getFileName() + ".lock");
        try (FileChannel lock = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = lock.lock()) {
            ownedLikeDirectory(lockFile);
            List<String> before = read();
            List<String> after = change.apply(before);
            if (after.equals(before)) {
                return after;
            }
            Path temp = path.resolveSibling(path.getFileName() + ".new");
            Files.deleteIfExists(temp);
            try {
                Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) { // not a POSIX file system
                Files.createFile(temp);
            }
            Files.write(temp, after, StandardCharsets.UTF_8);
            ownedLikeDirectory(temp);
            Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return after;
        }
    }
}
