package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.TransferType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code SIZE <path>} — RFC 3659 §4: the number of bytes a RETR in the current TYPE would send. In ASCII
 * that counts the CR added before each LF, which takes one read of the file (off the event loop, stopped by
 * ABOR or a disconnect).
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
        CommandPaths.required(session, request, this).ifPresent(path -> {
            Consumer<Long> answer = n -> session.reply(new FtpReply(ReplyCode.FILE_STATUS, Long.toString(n)));
            if (type == TransferType.BINARY) {
                session.blocking(path, () -> {
                    BasicFileAttributes attrs = session.root().attributes(path);
                    if (!attrs.isRegularFile()) {
                        throw new io.fsp.server.ftp.FtpReplyException(Replies.notAFile(path));
                    }
                    return attrs.size();
                }, answer);
                return;
            }
            session.wholeFileRead(path, () -> { // reads it all: ABOR may stop it
                try (FileChannel file = session.root().openRead(path)) {
                    return asciiSize(file);
                }
            }, answer);
        });
    }

    static long asciiSize(FileChannel ch) throws IOException {
        long size = 0;
        ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
        while (ch.read(buffer.clear()) >= 0) {
            buffer.flip();
            size += buffer.remaining();
            while (buffer.hasRemaining()) {
                if (buffer.get() == '\n') {
                    size++;
                }
            }
        }
        return size;
    }
}
