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

/** {@code RMD <path>} (alias {@code XRMD}) — RFC 959 §4.1.3. Removes an empty directory, never the root. */
public final class RmdCommand implements FtpCommand {
    @Override
    public String verb() {
        return "RMD";
    }

    @Override
    public String syntax() {
        return "RMD <path>";
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
            if (path.isRoot()) {
                throw new java.nio.file.AccessDeniedException("/");
            }
            try (UserRoot.Entry entry = session.root().entry(path)) {
                if (!entry.dir().existing(entry.name()).isDirectory()) {
                    throw new io.fsp.server.ftp.FtpReplyException(Replies.notADirectory(path));
                }
                entry.dir().deleteDirectory(entry.name());
            }
            return path;
        }, removed -> session.reply(Replies.fileActionOk(Replies.quote(removed) + " removed"))));
    }
}
