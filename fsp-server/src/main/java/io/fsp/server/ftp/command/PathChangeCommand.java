package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;

/**
 * A verb that changes the tree at the one path it names ({@code VERB <path>}): it checks that the user may write
 * and that the path is inside the root, runs {@link #change} off the loop, then {@link #done} replies.
 */
abstract class PathChangeCommand implements FtpCommand {
    private final String verb;

    PathChangeCommand(String verb) {
        this.verb = verb;
    }

    @Override
    public final String verb() {
        return verb;
    }

    @Override
    public final String syntax() {
        return verb + " <path>";
    }

    @Override
    public final Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public final void execute(FtpSession session, FtpRequest request) {
        if (!CommandPaths.writable(session)) {
            return;
        }
        CommandPaths.required(session, request, this).ifPresent(path -> session.blocking(path, () -> {
            change(session, path);
            return path;
        }, changed -> done(session, changed)));
    }

    /** The blocking work; a failure is mapped to its reply by the session. */
    abstract void change(FtpSession session, FtpPath path) throws Exception;

    /** The reply after {@link #change} succeeded, on the loop. */
    abstract void done(FtpSession session, FtpPath path);
}
