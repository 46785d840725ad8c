package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.ChecksumAllowance;
import io.fsp.server.ftp.FileRange;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.HashAlgorithm;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.function.Consumer;

/**
 * The one way the checksum commands (HASH, XCRC…, CKSM) read a file: opened through the user's root
 * ({@code UserRoot.openRead}, directory handles, no link followed), off the event loop as a cancellable
 * whole-file read (one per connection; ABOR or a disconnect stops it), within the connection's
 * {@link ChecksumAllowance}.
 */
final class FileChecksums {
    private static final int BUFFER = 256 * 1024;

    private FileChecksums() {
    }

    /** What was read: {@code length} bytes from {@code offset} of a file of {@code size} bytes. */
    record Result(long offset, long length, long size, String hex) {
    }

    /**
     * Computes {@code algorithm} over {@code range} of {@code path} and hands the result to {@code then} on the
     * event loop. Replies itself when it cannot: {@code 450} while the allowance is used up, {@code 501} for a
     * range that does not lie within the file, {@code 550} for a missing file or one outside the root.
     */
    static void compute(FtpSession session, FtpPath path, HashAlgorithm algorithm, FileRange range,
                        Consumer<Result> then) {
        ChecksumAllowance allowance = session.checksumAllowance();
        long wait = allowance.secondsToWait();
        if (wait > 0) {
            session.reply(new FtpReply(ReplyCode.FILE_BUSY, "Checksum limit of this connection reached; try again in "
                    + wait + " s"));
            return;
        }
        session.wholeFileRead(path, () -> {
            try (FileChannel file = session.root().openRead(path)) {
                long size = file.size();
                long length = range.lengthWithin(size);
                if (length < 0) {
                    throw new FtpReplyException(Replies.badArguments(describe(range) + " of "
                            + Replies.quote(path) + ": past the end of the file (" + size + " bytes)"));
                }
                String hex = digest(file, algorithm, range.offset(), length, allowance, path);
                return new Result(range.offset(), length, size, hex);
            }
        }, then);
    }

    /** Reads {@code length} bytes from {@code offset}, charging each to {@code allowance}. */
    static String digest(FileChannel file, HashAlgorithm algorithm, long offset, long length,
                         ChecksumAllowance allowance, FtpPath path) throws IOException {
        HashAlgorithm.Digester digester = algorithm.newDigester();
        ByteBuffer buffer = ByteBuffer.allocateDirect((int) Math.min(BUFFER, Math.max(1, length)));
        long position = offset;
        long end = offset + length;
        while (position < end) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), end - position));
            int n = file.read(buffer, position); // interruptible: ABOR and a disconnect stop it here
            if (n < 0) {
                throw new FtpReplyException(ReplyCode.LOCAL_ERROR, Replies.quote(path) + ": shrank while it was read");
            }
            position += n;
            allowance.charge(n);
            digester.update(buffer.flip());
        }
        return digester.hex();
    }

    private static String describe(FileRange range) {
        return range.length() == FileRange.TO_END ? "offset " + range.offset()
                : "offset " + range.offset() + ", length " + range.length();
    }
}
