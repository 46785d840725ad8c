package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.nio.file.AccessDeniedException;
import java.util.List;

/** {@code CWD <path>} (alias {@code XCWD}) — RFC 959 §4.1.1. Paths are a tree from "/" (RFC 3659 §6, TVFS). */
public final class CwdCommand implements FtpCommand {
    @Override
    public String verb() {
        return "CWD";
    }

    @Override
    public String syntax() {
        return "CWD <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("TVFS");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!CommandPaths.argumentGiven(session, request, this)) {
            return;
        }
        change(session, request.argument());
    }

    /** Changes to {@code argument}, shared with CDUP. */
    static void change(FtpSession session, String argument) {
        FtpPath path;
        try {
            path = session.resolve(argument);
        } catch (AccessDeniedException e) {
            session.reply(Replies.pathRefused(argument, e));
            return;
        }
        session.blocking(path, () -> {
            try {
                return session.root().attributes(path).isDirectory();
            } catch (java.nio.file.NoSuchFileException e) {
                return false;
            }
        }, isDirectory -> {
            if (isDirectory) {
                session.cwd(path);
                session.reply(Replies.fileActionOk("Directory changed to " + Replies.quote(path)));
            } else {
                session.reply(Replies.notADirectory(path));
            }
        });
    }
}
