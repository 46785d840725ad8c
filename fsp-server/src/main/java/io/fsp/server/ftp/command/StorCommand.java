package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;

/**
 * {@code STOR <path>} — RFC 959 §4.1.3; after REST, resumes at the offset (RFC 3659 §5). A new or replaced
 * file appears only once complete.
 */
public final class StorCommand implements FtpCommand {
    @Override
    public String verb() {
        return "STOR";
    }

    @Override
    public String syntax() {
        return "STOR <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        CommandPaths.required(session, request, this).ifPresent(path -> Uploads.receive(session, path, Uploads.Mode.REPLACE));
    }
}
