package io.fsp.server.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.Set;

/** What a listing shows about one file or directory. */
public record DirectoryEntry(String name, Kind kind, long size, Instant modified, Set<PosixFilePermission> permissions) {
    public enum Kind { FILE, DIRECTORY, OTHER }

    public DirectoryEntry {
        permissions = Set.copyOf(permissions);
    }

    /**
     * Reads the attributes of {@code real} (already resolved inside the root, so a link here was checked)
     * and names the entry {@code name}.
     */
    public static DirectoryEntry read(String name, Path real) throws IOException {
        BasicFileAttributes attrs;
        Set<PosixFilePermission> permissions;
        if (real.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            PosixFileAttributes posix = Files.readAttributes(real, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            attrs = posix;
            permissions = posix.permissions();
        } else {
            attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            permissions = Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        }
        Kind kind = attrs.isDirectory() ? Kind.DIRECTORY : attrs.isRegularFile() ? Kind.FILE : Kind.OTHER;
        return new DirectoryEntry(name, kind, attrs.size(), attrs.lastModifiedTime().toInstant(), permissions);
    }

    public boolean isDirectory() {
        return kind == Kind.DIRECTORY;
    }
}
