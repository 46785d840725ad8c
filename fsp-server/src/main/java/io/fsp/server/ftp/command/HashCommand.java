package io.fsp.server.ftp.command;

import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.HashAlgorithm;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.ReplyCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32;

/**
 * {@code HASH <path>} — draft-bryan-ftpext-hash-02 §3: the digest of a whole file with the algorithm chosen
 * by {@code OPTS HASH} (SHA-256 by default), as {@code 213 SHA-256 0-<size> <hex> <path>} (the range end is
 * exclusive). The file is read off the event loop; ABOR (answered 426, then 226) or a disconnect stops the
 * read.
 */
public final class HashCommand implements FtpCommand {
    private static final int BUFFER = 1 << 20;

    @Override
    public String verb() {
        return "HASH";
    }

    @Override
    public String syntax() {
        return "HASH <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        List<String> names = new ArrayList<>();
        for (HashAlgorithm a : HashAlgorithm.values()) {
            names.add(a.ftpName() + (a == session.hashAlgorithm() ? "*" : ""));
        }
        return List.of("HASH " + String.join(";", names));
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        HashAlgorithm algorithm = session.hashAlgorithm();
        String name = request.argument();
        CommandPaths.required(session, request, this).ifPresent(path -> session.wholeFileRead(path, () -> {
            try (FileChannel file = session.root().openRead(path)) {
                return digest(file, algorithm);
            }
        }, result -> session.reply(new FtpReply(ReplyCode.FILE_STATUS,
                algorithm.ftpName() + " 0-" + result.size() + " " + result.hex() + " " + name))));
    }

    /** A file's digest and the number of bytes it covers. */
    public record FileDigest(long size, String hex) {
    }

    public static FileDigest digest(FileChannel ch, HashAlgorithm algorithm) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
        long size = 0;
        try {
            if (algorithm == HashAlgorithm.CRC32) {
                CRC32 crc = new CRC32();
                while (ch.read(buffer.clear()) >= 0) {
                    size += buffer.flip().remaining();
                    crc.update(buffer);
                }
                return new FileDigest(size, String.format("%08x", crc.getValue()));
            }
            MessageDigest md = MessageDigest.getInstance(algorithm.jcaName());
            while (ch.read(buffer.clear()) >= 0) {
                size += buffer.flip().remaining();
                md.update(buffer);
            }
            return new FileDigest(size, HexFormat.of().formatHex(md.digest()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm.jcaName() + " is missing from this Java runtime", e);
        }
    }
}
