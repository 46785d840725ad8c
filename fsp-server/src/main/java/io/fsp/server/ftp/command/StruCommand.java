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

/** {@code STRU F} — RFC 959 §4.1.2: file structure only. */
public final class StruCommand implements FtpCommand {
    @Override
    public String verb() {
        return "STRU";
    }

    @Override
    public String syntax() {
        return "STRU F";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String arg = request.argument().strip().toUpperCase(Locale.ROOT);
        if (arg.equals("F")) {
            session.reply(Replies.ok("STRU set to F (File)"));
        } else if (arg.length() == 1 && "R P".contains(arg)) {
            session.reply(Replies.notImplementedForParameter("STRU " + arg + " not supported (expected: F)"));
        } else {
            session.reply(Replies.badArguments("STRU '" + request.argument() + "' unknown (expected: F)"));
        }
    }
}
