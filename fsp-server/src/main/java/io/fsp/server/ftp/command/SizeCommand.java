package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.ReplyCode;
import io.fsp.server.ftp.TransferType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * {@code SIZE <path>} — RFC 3659 §4: the number of bytes a RETR in the current TYPE would send. In ASCII
 * that counts the CR added before each LF, which takes one read of the file (off the event loop).
 */
public final class SizeCommand implements FtpCommand {
    @Override
    public String verb() {
        return "SIZE";
    }

    @Override
    public String syntax() {
        return "SIZE <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("SIZE");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        TransferType type = session.type();
        CommandPaths.required(session, request, this).ifPresent(path -> session.blocking(path, () -> {
            Path real = session.root().resolve(path);
            if (!Files.isRegularFile(real)) {
                throw Files.exists(real) ? new io.fsp.server.ftp.FtpReplyException(Replies.notAFile(path))
                        : new java.nio.file.NoSuchFileException(path.toString());
            }
            return type == TransferType.BINARY ? Files.size(real) : asciiSize(real);
        }, size -> session.reply(new FtpReply(ReplyCode.FILE_STATUS, Long.toString(size)))));
    }

    static long asciiSize(Path file) throws IOException {
        long size = 0;
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (ch.read(buffer.clear()) >= 0) {
                buffer.flip();
                size += buffer.remaining();
                while (buffer.hasRemaining()) {
                    if (buffer.get() == '\n') {
                        size++;
                    }
                }
            }
        }
        return size;
    }
}
