package io.fsp.crypto;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/** Files that hold secrets (TLS private keys, recipient identities): written owner-only, refused when others may read. */
public final class KeyFiles {
    private KeyFiles() {
    }

    /**
     * A private key that its group or others may read could already be in other hands: refused, as OpenSSH
     * refuses such a key, with what to do about it. Where the file system has no POSIX permissions, not checked.
     */
    public static void refuseIfOthersCanRead(Path keyFile) throws IOException {
        if (!keyFile.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(keyFile);
        Set<PosixFilePermission> others = EnumSet.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_EXECUTE);
        others.retainAll(perms);
        if (!others.isEmpty()) {
            throw new IOException(keyFile + ": private key open to its group or others (" + PosixFilePermissions.toString(perms)
                    + "); run 'chmod 600 " + keyFile + "' (expected: only its owner may read or write it)");
        }
    }

    /** What {@link #write} writes into a file, given a writer. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Writer w) throws IOException;
    }

    /**
     * Writes {@code file} aside and moves it into place, so a reader never sees half a key; a {@code secret} is
     * readable by its owner only from its first byte on. Unless {@code replace}, an existing file is left alone
     * and {@link FileAlreadyExistsException} thrown. The file and its name are on disk when this returns (fsync of
     * both): a key said to be written survives a power loss, and one the disk failed to store is an error.
     */
    public static void write(Path file, boolean secret, boolean replace, Content content) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            if (tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--"));
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
                 Writer w = new BufferedWriter(Channels.newWriter(ch, StandardCharsets.US_ASCII))) {
                content.writeTo(w);
                w.flush();
                ch.force(true);
            }
            if (replace) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                Files.createLink(file, tmp); // fails if the name exists: no window in which a key is overwritten
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
