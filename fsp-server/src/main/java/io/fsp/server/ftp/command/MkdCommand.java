package io.fsp.server.ftp.command;

import io.fsp.ftp.ReplyCode;
import io.fsp.server.fs.DirectoryHandle;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import java.nio.file.FileAlreadyExistsException;

/** {@code MKD <path>} (alias {@code XMKD}) — RFC 959 §4.1.3; 257 with the new directory's path. */
public final class MkdCommand extends PathChangeCommand {
    public MkdCommand() {
        super("MKD");
    }

    @Override
    void change(FtpSession session, FtpPath path) throws Exception {
        if (path.isRoot()) {
            throw new FileAlreadyExistsException("/");
        }
        try (UserRoot.Entry entry = session.root().entry(path); DirectoryHandle root = session.root().openRoot()) {
            entry.dir().createDirectory(entry.name(), root);
        }
    }

    @Override
    void done(FtpSession session, FtpPath created) {
        session.reply(new FtpReply(ReplyCode.PATH_CREATED, Replies.quote(created) + " created"));
    }
}
