package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.util.List;
import java.util.Locale;

/** {@code PROT C|P} — RFC 4217 §9, RFC 2228 §3: clear or TLS-protected data connections. */
public final class ProtCommand implements FtpCommand {
    @Override
    public String verb() {
        return "PROT";
    }

    @Override
    public String syntax() {
        return "PROT C|P";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("PROT");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!session.isSecure()) {
            session.reply(Replies.badSequence("PROT needs AUTH TLS first"));
            return;
        }
        if (!session.protectionBufferSizeSet()) {
            session.reply(Replies.badSequence("PROT needs PBSZ first"));
            return;
        }
        switch (request.argument().strip().toUpperCase(Locale.ROOT)) {
            case "C" -> {
                session.protectData(false);
                session.reply(Replies.ok("Data connections are clear"));
            }
            case "P" -> {
                session.protectData(true);
                session.reply(Replies.ok("Data connections are protected by TLS"));
            }
            case "S", "E" -> session.reply(new FtpReply(ReplyCode.PROTECTION_LEVEL_NOT_SUPPORTED,
                    "PROT " + request.argument().strip() + " not supported (expected: C or P)"));
            default -> session.reply(Replies.notImplementedForParameter(
                    "PROT '" + request.argument() + "' unknown (expected: C or P)"));
        }
    }
}
