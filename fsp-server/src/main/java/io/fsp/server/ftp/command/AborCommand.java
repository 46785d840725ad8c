package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/**
 * {@code ABOR} — RFC 959 §4.1.3. With a transfer running it closes the data connection: the transfer is
 * answered 426, then ABOR 226. With a read of a whole file running (HASH, SIZE in ASCII) that read is
 * answered 426 and stopped, then ABOR 226. Without either, 225.
 */
public final class AborCommand implements FtpCommand {
    @Override
    public String verb() {
        return "ABOR";
    }

    @Override
    public String syntax() {
        return "ABOR";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (session.wholeFileReadRunning()) {
            session.cancelWholeFileRead();
            session.reply(new FtpReply(ReplyCode.TRANSFER_COMPLETE, "ABOR successful"));
            return;
        }
        session.transfer().ifPresentOrElse(t -> {
            t.abort(true);
            t.whenFinished(() -> session.reply(new FtpReply(ReplyCode.TRANSFER_COMPLETE, "ABOR successful")));
        }, () -> {
            session.dataConnection(null);
            session.reply(new FtpReply(ReplyCode.DATA_CONNECTION_OPEN, "No transfer to abort"));
        });
    }
}
