package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import java.nio.file.AccessDeniedException;
import java.util.Optional;

/** The path argument checks that file commands share; each replies itself when it refuses. */
public final class CommandPaths {
    private CommandPaths() {
    }

    /** The path a command names, or empty after replying 501 (no argument) or 550 (outside the root). */
    public static Optional<FtpPath> required(FtpSession session, FtpRequest request, FtpCommand command) {
        return argumentGiven(session, request, command) ? resolve(session, request.argument()) : Optional.empty();
    }

    /** Whether the request has an argument; replies 501 with the command's syntax if not. */
    public static boolean argumentGiven(FtpSession session, FtpRequest request, FtpCommand command) {
        if (!request.hasArgument()) {
            session.reply(Replies.missingArgument(command.verb(), command.syntax()));
            return false;
        }
        return true;
    }

    public static Optional<FtpPath> resolve(FtpSession session, String argument) {
        try {
            return Optional.of(session.resolve(argument));
        } catch (AccessDeniedException e) {
            session.reply(Replies.pathRefused(argument, e));
            return Optional.empty();
        }
    }

    /** Whether the user may change files; replies 550 if not. */
    public static boolean writable(FtpSession session) {
        if (!session.isWritable()) {
            session.reply(Replies.readOnly());
            return false;
        }
        return true;
    }
}
