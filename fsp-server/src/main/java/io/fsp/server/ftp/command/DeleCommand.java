package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code DELE <path>} — RFC 959 §4.1.3. Deletes a file (or a link itself), never a directory. */
public final class DeleCommand implements FtpCommand {
    @Override
    public String verb() {
        return "DELE";
    }

    @Override
    public String syntax() {
        return "DELE <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!CommandPaths.writable(session)) {
            return;
        }
        CommandPaths.required(session, request, this).ifPresent(path -> session.blocking(path, () -> {
            try (UserRoot.Entry entry = session.root().entry(path)) {
                if (entry.dir().existing(entry.name()).isDirectory()) {
                    throw new io.fsp.server.ftp.FtpReplyException(Replies.notAFile(path));
                }
                entry.dir().deleteFile(entry.name());
            }
            return path;
        }, deleted -> session.reply(Replies.fileActionOk(Replies.quote(deleted) + " deleted"))));
    }
}
