package io.fsp.server.ftp;

import java.util.List;

/**
 * One FTP verb. Implementations are stateless and run on the control channel's event loop; they reply
 * through the session, at once or later (after blocking work or a transfer), exactly one final reply.
 */
public interface FtpCommand {
    /** The verb, upper case ({@code "RETR"}). */
    String verb();

    /** The argument syntax shown by HELP ({@code "RETR <path>"}). */
    String syntax();

    Access access();

    /** Whether the command is refused (534) on a control channel without TLS; FSP extension commands are. */
    default boolean requiresTls() {
        return false;
    }

    /** FEAT lines this command adds (without the leading space), given the session's state. */
    default List<String> features(FtpSession session) {
        return List.of();
    }

    void execute(FtpSession session, FtpRequest request);
}
