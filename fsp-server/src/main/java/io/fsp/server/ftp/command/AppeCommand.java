package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;

/** {@code APPE <path>} — RFC 959 §4.1.3: appends to the file, creating it if needed. */
public final class AppeCommand implements FtpCommand {
    @Override
    public String verb() {
        return "APPE";
    }

    @Override
    public String syntax() {
        return "APPE <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        CommandPaths.required(session, request, this).ifPresent(path -> Uploads.receive(session, path, Uploads.Mode.APPEND));
    }
}
