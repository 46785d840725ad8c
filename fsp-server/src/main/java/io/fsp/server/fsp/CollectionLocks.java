package io.fsp.server.fsp;

import io.fsp.client.write.DestinationLock;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One lock per destination in a user's root, shared by FCOL, STOR and a local {@code fsp get} or {@code fsp collect}:
 * the client's {@link DestinationLock} file {@code .NAME.fsp-lock} beside the destination's real path, the very file
 * such a run into that path takes (the root's own lock lies inside it, as {@code .fsp-root.fsp-lock}: the root's
 * parent is not the server's to write). FTP commands cannot name these files ({@code UploadNames#isReserved}).
 * A collection holds the lock while it runs; an upload only checks that neither its file nor a directory it lies in
 * is being collected.
 */
final class CollectionLocks {
    private static final String ROOT_LOCK = ".fsp-root.fsp-lock";

    private CollectionLocks() {
    }

    /**
     * Takes the lock of {@code path} for a collection.
     *
     * @throws FtpReplyException 450 if another run holds it
     */
    static DestinationLock take(UserRoot root, FtpPath path, String what) throws IOException {
        Path lock = lockFile(root, root.resolve(path));
        if (!Files.isDirectory(lock.getParent(), LinkOption.NOFOLLOW_LINKS)) {
            // the lock makes no directory: a destination's parent must exist, as for STOR
            throw new NoSuchFileException(path.parent().toString());
        }
        try {
            return DestinationLock.take(lock, what);
        } catch (DestinationLock.DestinationBusyException e) {
            throw busy(path);
        }
    }

    /**
     * Refuses to write {@code real} (the real path of {@code path} in {@code root}) while a run collects into it or into
     * a directory it lies in.
     *
     * @throws FtpReplyException 450 if a run holds one of those locks
     */
    static void checkFree(UserRoot root, FtpPath path, Path real) throws IOException {
        try {
            for (Path p = real; root.contains(p); p = p.getParent()) {
                DestinationLock.check(lockFile(root, p));
                if (p.equals(root.realRoot())) {
                    break;
                }
            }
        } catch (DestinationLock.DestinationBusyException e) {
            throw busy(path);
        }
    }

    /** A name too long for {@code .NAME.fsp-lock} (file names have at most 255 bytes) is replaced by a digest of it. */
    private static Path lockFile(UserRoot root, Path real) {
        if (real.equals(root.realRoot())) {
            return real.resolve(ROOT_LOCK);
        }
        String name = real.getFileName().toString();
        String lock = "." + name + ".fsp-lock";
        if (lock.getBytes(StandardCharsets.UTF_8).length > 255) {
            try {
                byte[] d = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
                lock = "." + HexFormat.of().formatHex(d, 0, 16) + ".fsp-lock";
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java runtime has SHA-256", e);
            }
        }
        return real.getParent().resolve(lock);
    }

    private static FtpReplyException busy(FtpPath path) {
        // the holder's text is not told: it names another run's process and maybe another user
        return new FtpReplyException(ReplyCode.FILE_BUSY, Replies.quote(path) + " is being collected by another run"
                + " (FCOL, fsp get or fsp collect); try again when it has ended");
    }
}
