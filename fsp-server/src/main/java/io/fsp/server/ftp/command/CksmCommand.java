package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.util.List;

/**
 * {@code CKSM <algorithm> <offset> <length> <path>} — GridFTP v2 (OGF GFD.47), as globus-gridftp-server
 * implements it: the checksum of {@code length} bytes from {@code offset} ({@code -1}: to the end of the file)
 * as {@code 213 <hex>} (lower case). Algorithms by GridFTP's names: ADLER32, CRC32, MD5, SHA1, SHA256, SHA512,
 * listed in FEAT as {@code CKSM ADLER32;CRC32;…}. The argument grammar is {@link ChecksumArguments#cksm}.
 */
public final class CksmCommand implements FtpCommand {
    @Override
    public String verb() {
        return "CKSM";
    }

    @Override
    public String syntax() {
        return "CKSM <algorithm> <offset> <length> <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("CKSM " + ChecksumArguments.gridFtpNames(";"));
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!CommandPaths.argumentGiven(session, request, this)) {
            return;
        }
        ChecksumArguments.Cksm parsed;
        try {
            parsed = ChecksumArguments.cksm(request.argument());
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments("CKSM: " + e.getMessage()));
            return;
        }
        CommandPaths.resolve(session, parsed.path()).ifPresent(path ->
                FileChecksums.compute(session, path, parsed.algorithm(), parsed.range(), result ->
                        session.reply(new FtpReply(ReplyCode.FILE_STATUS, result.hex()))));
    }
}
