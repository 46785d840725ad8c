package io.fsp.server.fs;

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

    /** The entry {@code name} with the attributes {@code attrs} (read through handles, see {@link UserRoot}). */
    public static DirectoryEntry of(String name, BasicFileAttributes attrs) {
        Set<PosixFilePermission> permissions = attrs instanceof PosixFileAttributes posix ? posix.permissions()
                : Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        Kind kind = attrs.isDirectory() ? Kind.DIRECTORY : attrs.isRegularFile() ? Kind.FILE : Kind.OTHER;
        return new DirectoryEntry(name, kind, attrs.size(), attrs.lastModifiedTime().toInstant(), permissions);
    }

    public boolean isDirectory() {
        return kind == Kind.DIRECTORY;
    }
}
