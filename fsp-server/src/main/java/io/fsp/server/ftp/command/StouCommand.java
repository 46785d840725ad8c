package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;

/**
 * {@code STOU [<name>]} — RFC 959 §4.1.3, RFC 1123 §4.1.2.9: stores under a name not yet used in the
 * working directory ({@code name}, {@code name.1}, …), announced as {@code 150 FILE: <name>}.
 */
public final class StouCommand implements FtpCommand {
    @Override
    public String verb() {
        return "STOU";
    }

    @Override
    public String syntax() {
        return "STOU [<name>]";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String name = request.hasArgument() ? request.argument() : "stou-" + System.currentTimeMillis();
        CommandPaths.resolve(session, name).ifPresent(path -> Uploads.receive(session, path, Uploads.Mode.UNIQUE));
    }
}
