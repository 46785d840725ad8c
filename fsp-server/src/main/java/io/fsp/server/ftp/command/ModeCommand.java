package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.util.Locale;

/** {@code MODE S} — RFC 959 §4.1.2: stream mode only. */
public final class ModeCommand implements FtpCommand {
    @Override
    public String verb() {
        return "MODE";
    }

    @Override
    public String syntax() {
        return "MODE S";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String arg = request.argument().strip().toUpperCase(Locale.ROOT);
        if (arg.equals("S")) {
            session.reply(Replies.ok("MODE set to S (Stream)"));
        } else if (arg.length() == 1 && "B C".contains(arg)) {
            session.reply(Replies.notImplementedForParameter("MODE " + arg + " not supported (expected: S)"));
        } else {
            session.reply(Replies.badArguments("MODE '" + request.argument() + "' unknown (expected: S)"));
        }
    }
}
