package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FileRange;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.HashAlgorithm;
import io.fsp.ftp.ReplyCode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code HASH <path>} — draft-bryan-ftpext-hash-02 §3: the digest with the algorithm chosen by
 * {@code OPTS HASH} (SHA-256 by default). Of the whole file: {@code 213 SHA-256 0-<size> <hex> <path>} (the
 * range end exclusive, as ProFTPD sends it). Right after {@code RANG <start> <end>} (§3.3): of those bytes,
 * {@code 213 SHA-256 <start>-<end> <hex> <path>}, the end inclusive as RANG gives it. Read through
 * {@link FileChecksums}: off the event loop, stopped by ABOR or a disconnect, within the connection's
 * checksum allowance.
 */
public final class HashCommand implements FtpCommand {
    @Override
    public String verb() {
        return "HASH";
    }

    @Override
    public String syntax() {
        return "HASH <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        List<String> names = new ArrayList<>();
        for (HashAlgorithm a : HashAlgorithm.values()) {
            if (a.offeredByHash()) {
                names.add(a.ftpName() + (a == session.hashAlgorithm() ? "*" : ""));
            }
        }
        return List.of("HASH " + String.join(";", names));
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        HashAlgorithm algorithm = session.hashAlgorithm();
        boolean ranged = session.hashRange().isPresent();
        FileRange range = session.hashRange().orElse(FileRange.WHOLE);
        session.hashRange(null); // used once, as REST is
        String name = request.argument();
        CommandPaths.required(session, request, this).ifPresent(path ->
                FileChecksums.compute(session, path, algorithm, range, result -> {
                    String span = ranged ? result.offset() + "-" + (result.offset() + result.length() - 1)
                            : "0-" + result.size();
                    session.reply(new FtpReply(ReplyCode.FILE_STATUS,
                            algorithm.ftpName() + " " + span + " " + result.hex() + " " + name));
                }));
    }
}
