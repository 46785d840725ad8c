package io.fsp.server.fsp;

import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.OriginSignature;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpSession;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.stripe.Announcements;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A striped transfer's announcements as {@code 151} lines on the session's control channel, formatted by the
 * extension's codec: the one place where an FSP announcement is written to the client, held back while the
 * client does not read its replies ({@link FtpSession#awaitReplyRoom}). An evacuation's lines are also signed
 * ({@link OriginSignature}): a {@code 151 SIG} line each second while new lines came (state running), and one at
 * the end (complete, or partial when striping failed), so that a manifest cut off by a deadline still holds a
 * signed prefix.
 */
final class ControlChannelAnnouncements implements Announcements {
    private static final Logger log = LoggerFactory.getLogger(ControlChannelAnnouncements.class);
    /** How often an evacuation's new lines are signed while it stripes. */
    static final long SIGN_EVERY_MILLIS = 1000;

    private final FtpSession session;
    private final Signer signer;

    private ControlChannelAnnouncements(FtpSession session, Signer signer) {
        this.session = session;
        this.signer = signer;
    }

    /** Announcements as they are, unsigned (a transfer collected over this session). */
    static ControlChannelAnnouncements plain(FtpSession session) {
        return new ControlChannelAnnouncements(session, null);
    }

    /**
     * Signed announcements of an evacuation of {@code path} for {@code user}, taken at {@code created} and retained
     * until {@code retainUntil}, with the server's TLS key.
     */
    static ControlChannelAnnouncements signed(FtpSession session, PrivateKey key, String user, String path,
                                              Instant created, Instant retainUntil) {
        Signer signer = new Signer(session, key, user, path, created, retainUntil);
        ControlChannelAnnouncements a = new ControlChannelAnnouncements(session, signer);
        ScheduledFuture<?> timer = session.channel().eventLoop().scheduleAtFixedRate(signer::signNew, SIGN_EVERY_MILLIS,
                SIGN_EVERY_MILLIS, TimeUnit.MILLISECONDS);
        signer.timer = timer;
        session.channel().closeFuture().addListener(f -> timer.cancel(false));
        return a;
    }

    @Override
    public void announce(Announcement a) {
        String line = ExtensionCodec.format(a);
        if (signer == null) {
            session.reply(new FtpReply(ReplyCode.FSP_ANNOUNCEMENT, line));
        } else {
            signer.announce(line);
        }
    }

    @Override
    public boolean awaitRoom() {
        return session.awaitReplyRoom();
    }

    @Override
    public void end(boolean complete) {
        if (signer != null) {
            signer.end(complete);
        }
    }

    /**
     * Hashes each line as it goes out and signs what went out so far. One lock orders lines and signatures: a
     * SIG line follows exactly the lines it counts.
     */
    private static final class Signer {
        private final FtpSession session;
        private final PrivateKey key;
        private final String user;
        private final String path;
        private final Instant created;
        private final Instant retainUntil;
        private final OriginSignature.Lines lines = new OriginSignature.Lines();
        private long signed = -1;
        /** The last signature is out, or signing failed: no more SIG lines. */
        private boolean ended;
        private volatile ScheduledFuture<?> timer;

        Signer(FtpSession session, PrivateKey key, String user, String path, Instant created, Instant retainUntil) {
            this.session = session;
            this.key = key;
            this.user = user;
            this.path = path;
            this.created = created;
            this.retainUntil = retainUntil;
        }

        synchronized void announce(String line) {
            lines.add(line);
            session.reply(new FtpReply(ReplyCode.FSP_ANNOUNCEMENT, line));
        }

        synchronized void signNew() {
            if (lines.count() != signed) {
                sign(OriginSignature.RUNNING);
            }
        }

        private void sign(String state) {
            if (!ended) {
                signed = lines.count();
                OriginSignature s;
                try {
                    s = OriginSignature.sign(key, user, path, new OriginSignature.Terms(created, retainUntil, state),
                            signed, lines.sha256());
                } catch (RuntimeException e) {
                    // unsigned lines are worth nothing to a collector, but the striping goes on and ends as it would
                    log.error("{} evacuation of {}: cannot sign its announcements: {}", session, path, e.toString());
                    ended = true;
                    return;
                }
                session.reply(new FtpReply(ReplyCode.FSP_ANNOUNCEMENT, s.format()));
            }
        }

        /** The last signature, even over no new line: it says how the evacuation ended. */
        synchronized void end(boolean complete) {
            sign(complete ? OriginSignature.COMPLETE : OriginSignature.PARTIAL);
            ended = true;
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }
    }
}
