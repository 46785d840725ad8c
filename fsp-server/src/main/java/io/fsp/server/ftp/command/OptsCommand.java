package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.HashAlgorithm;
import java.util.List;
import java.util.Locale;

/**
 * {@code OPTS <option> [<value>]} — RFC 2389 §4. {@code OPTS UTF8 ON} (names are always UTF-8, RFC 2640),
 * {@code OPTS HASH [<algorithm>]} (draft-bryan-ftpext-hash §3.2; an unknown one is answered 501) and {@code OPTS MLST <facts>} (RFC 3659 §7.9;
 * every fact is always sent).
 */
public final class OptsCommand implements FtpCommand {
    @Override
    public String verb() {
        return "OPTS";
    }

    @Override
    public String syntax() {
        return "OPTS <option> [<value>]";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("UTF8");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String[] parts = request.argument().strip().split("\\s+", 2);
        String option = parts[0].toUpperCase(Locale.ROOT);
        String value = parts.length > 1 ? parts[1].strip() : "";
        switch (option) {
            case "UTF8", "UTF-8" -> {
                if (value.isEmpty() || value.equalsIgnoreCase("ON")) {
                    session.reply(Replies.ok("UTF8 mode is always on"));
                } else {
                    session.reply(Replies.notImplementedForParameter("UTF8 cannot be turned off"));
                }
            }
            case "HASH" -> {
                if (value.isEmpty()) {
                    session.reply(Replies.ok(session.hashAlgorithm().ftpName()));
                    return;
                }
                HashAlgorithm.byName(value).ifPresentOrElse(a -> {
                    session.hashAlgorithm(a);
                    session.reply(Replies.ok(a.ftpName()));
                }, () -> session.reply(Replies.badArguments("Unknown algorithm '" + value + "' (expected one of: "
                        + hashNames() + "); current selection not changed"))); // §3.2: 501
            }
            case "MLST" -> session.reply(Replies.ok("MLST OPTS type;size;modify;perm;"));
            default -> session.reply(Replies.badArguments("OPTS: option '" + option + "' not supported"));
        }
    }

    private static String hashNames() {
        return java.util.Arrays.stream(HashAlgorithm.values()).filter(HashAlgorithm::offeredByHash)
                .map(HashAlgorithm::ftpName).collect(java.util.stream.Collectors.joining(", "));
    }
}
