package io.fsp.server.ftp.command;

import io.fsp.block.stage.SealedBlock;
import io.fsp.extension.ExtensionLimits;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.ReplyCode;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.metrics.ServerMetrics;
import io.fsp.server.stripe.StripeContext;
import io.fsp.server.stripe.StripedTransfer;
import io.fsp.token.TransferId;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code FGET <transfer-id> <seq>[,<seq>…]} — FSP extension (docs/protocol.md §1, "FSP extension"): the origin re-fetch. The
 * server seals the named blocks of one of this session's recent FRET transfers again (same key and sequence
 * numbers, so the same bytes) and sends them, one after the other, on the data connection set up with
 * EPSV/PASV; 226 when all are sent. For blocks that every relay lost or spoiled.
 */
public final class FgetCommand extends FspExtensionCommand {
    static final int MAX_BLOCKS = ExtensionLimits.MAX_FGET_BLOCKS;

    public FgetCommand(StripeContext stripe) {
        super(stripe);
    }

    @Override
    public String verb() {
        return "FGET";
    }

    @Override
    public String syntax() {
        return "FGET <transfer-id> <seq>[,<seq>...]";
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String[] words = request.argument().trim().split("\\s+");
        if (words.length != 2) {
            session.reply(Replies.missingArgument(verb(), syntax()));
            return;
        }
        StripedTransfer transfer;
        List<Long> seqs = new ArrayList<>();
        try {
            TransferId id = TransferId.parse(words[0]);
            transfer = state(session).transfer(id).orElse(null);
            if (transfer == null) {
                session.reply(new FtpReply(ReplyCode.FILE_UNAVAILABLE, "transfer " + words[0]
                        + ": unknown (expected: one of this session's recent FRET transfers)"));
                return;
            }
            String[] list = words[1].split(",", MAX_BLOCKS + 1);
            if (list.length > MAX_BLOCKS) {
                session.reply(Replies.badArguments("blocks: more than " + MAX_BLOCKS + " (expected: <= " + MAX_BLOCKS + ")"));
                return;
            }
            for (String s : list) {
                long seq = Long.parseLong(s);
                if (seq < 0 || seq >= transfer.plan().count()) {
                    session.reply(Replies.badArguments("block: " + s + " (expected: 0.." + (transfer.plan().count() - 1) + ")"));
                    return;
                }
                seqs.add(seq);
            }
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments(e.getMessage()));
            return;
        }
        Optional<DataConnection> connection = session.takeDataConnection();
        if (connection.isEmpty()) {
            session.reply(Replies.noDataConnection());
            return;
        }
        StripedTransfer t = transfer;
        DataTransfers.run(session, connection.get(), FtpPath.ROOT,
                "Sending " + seqs.size() + " blocks of FSP transfer " + t.id(),
                (ch, tls, running) -> {
                    Promise<Long> done = ch.eventLoop().newPromise();
                    ServerMetrics.Sent sent = session.sent(ServerMetrics.ORIGIN);
                    stripe.engines().execute(() -> {
                        long bytes = 0;
                        try {
                            for (long seq : seqs) {
                                SealedBlock sealed = t.reseal(seq);
                                int n = sealed.block().content().readableBytes();
                                bytes += n;
                                // one block in flight at a time keeps memory at one block
                                ch.writeAndFlush(sealed.block().content()).sync();
                                sent.accept(n); // written to the socket
                            }
                            done.trySuccess(bytes);
                        } catch (Exception e) {
                            done.tryFailure(e);
                        }
                    });
                    return done;
                }, ok -> { });
    }
}
