package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.util.List;

/**
 * {@code REST <offset>} — RFC 3659 §5 (STREAM mode): the next RETR starts at {@code offset}, the next STOR
 * writes from {@code offset} on.
 */
public final class RestCommand implements FtpCommand {
    @Override
    public String verb() {
        return "REST";
    }

    @Override
    public String syntax() {
        return "REST <offset>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("REST STREAM");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String arg = request.argument().strip();
        long offset;
        try {
            offset = arg.matches("\\d{1,19}") ? Long.parseLong(arg) : -1;
        } catch (NumberFormatException e) {
            offset = -1;
        }
        if (offset < 0) {
            session.reply(Replies.badArguments("REST '" + arg + "' (expected: a byte offset >= 0)"));
            return;
        }
        session.restOffset(offset);
        session.reply(new FtpReply(ReplyCode.PENDING_FURTHER_INFO,
                "Restarting at " + offset + ". Send STOR or RETR to initiate transfer"));
    }
}
