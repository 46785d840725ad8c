package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpCommands;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.HashAlgorithm;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.util.List;
import java.util.Locale;

/**
 * {@code XCRC}, {@code XMD5}, {@code XSHA1}, {@code XSHA256}, {@code XSHA512} {@code <path>} or
 * {@code "<path>" <start> <end>} — the unstandardised checksum commands listed in draft-bryan-ftpext-hash-02
 * Appendix B (GlobalSCAPE's XCRC and its kin), as FluentFTP and WinSCP send them: one verb per algorithm, the
 * value alone as {@code 250 <HEX>} (upper case, as ProFTPD's mod_digest and Serv-U answer; both clients take
 * the reply's last word and accept any 2yz). The argument grammar is {@link ChecksumArguments#xChecksum}. One
 * stateless instance per verb, registered in {@link FtpCommands}.
 */
public final class XChecksumCommand implements FtpCommand {
    private final String verb;
    private final HashAlgorithm algorithm;

    public XChecksumCommand(String verb, HashAlgorithm algorithm) {
        this.verb = verb;
        this.algorithm = algorithm;
    }

    @Override
    public String verb() {
        return verb;
    }

    @Override
    public String syntax() {
        return verb + " <path> | " + verb + " \"<path>\" <start> <end>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of(verb);
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!request.hasArgument()) {
            session.reply(Replies.missingArgument(verb, syntax()));
            return;
        }
        ChecksumArguments.PathAndRange parsed;
        try {
            parsed = ChecksumArguments.xChecksum(request.argument());
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments(verb + ": " + e.getMessage()));
            return;
        }
        CommandPaths.resolve(session, parsed.path()).ifPresent(path ->
                FileChecksums.compute(session, path, algorithm, parsed.range(), result ->
                        session.reply(new FtpReply(ReplyCode.FILE_ACTION_OK, result.hex().toUpperCase(Locale.ROOT)))));
    }
}
