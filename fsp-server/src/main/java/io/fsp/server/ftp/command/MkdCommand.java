package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.fs.DirectoryHandle;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code MKD <path>} (alias {@code XMKD}) — RFC 959 §4.1.3; 257 with the new directory's path. */
public final class MkdCommand implements FtpCommand {
    @Override
    public String verb() {
        return "MKD";
    }

    @Override
    public String syntax() {
        return "MKD <path>";
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
                throw new java.nio.file.FileAlreadyExistsException("/");
            }
            try (UserRoot.Entry entry = session.root().entry(path); DirectoryHandle root = session.root().openRoot()) {
                entry.dir().createDirectory(entry.name(), root);
            }
            return path;
        }, created -> session.reply(new FtpReply(ReplyCode.PATH_CREATED, Replies.quote(created) + " created"))));
    }
}
