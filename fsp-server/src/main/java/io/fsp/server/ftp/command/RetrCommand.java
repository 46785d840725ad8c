package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.TransferType;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.ftp.data.FileSender;
import io.fsp.server.metrics.ServerMetrics;
import java.nio.channels.FileChannel;
import java.util.Optional;

/**
 * {@code RETR <path>} — RFC 959 §4.1.3, from the REST offset if one was given (RFC 3659 §5). The file is
 * opened off the event loop, through directory handles from the root (never a FIFO or device); the bytes go by {@code sendfile} when the data connection is clear and the
 * type is I.
 */
public final class RetrCommand implements FtpCommand {
    @Override
    public String verb() {
        return "RETR";
    }

    @Override
    public String syntax() {
        return "RETR <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    private record Opened(FileChannel file, long size) implements AutoCloseable {
        @Override
        public void close() throws java.io.IOException {
            file.close();
        }
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        Optional<FtpPath> resolved = CommandPaths.required(session, request, this);
        if (resolved.isEmpty()) {
            return;
        }
        FtpPath path = resolved.get();
        long offset = session.takeRestOffset();
        Optional<DataConnection> connection = session.takeDataConnectionOrReply();
        if (connection.isEmpty()) {
            return;
        }
        boolean ascii = session.type() == TransferType.ASCII;
        session.blocking(path, () -> {
            FileChannel file = session.root().openRead(path);
            long size = file.size();
            if (offset > size) {
                file.close();
                throw new FtpReplyException(ReplyCode.INVALID_REST,
                        "REST offset " + offset + " is beyond the end of " + Replies.quote(path) + " (" + size + " bytes)");
            }
            return new Opened(file, size);
        }, opened -> DataTransfers.run(session, connection.get(), path,
                "Opening " + (ascii ? "ASCII" : "BINARY") + " mode data connection for " + Replies.quote(path)
                        + " (" + opened.size() + " bytes)",
                FileSender.file(session, opened.file(), offset, opened.size() - offset, ascii,
                        session.sent(ServerMetrics.FTP)),
                ok -> opened.close()),
                () -> connection.get().close());
    }
}
