package io.fsp.server.ftp.command;

import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.ReplyCode;
import io.fsp.server.stripe.Announcements;

/**
 * A striped transfer's announcements as {@code 151} lines on the session's control channel, formatted by the
 * extension's codec: the one place where an FSP announcement is written to the client, held back while the
 * client does not read its replies ({@link FtpSession#awaitReplyRoom}).
 */
final class ControlChannelAnnouncements implements Announcements {
    private final FtpSession session;

    ControlChannelAnnouncements(FtpSession session) {
        this.session = session;
    }

    @Override
    public void announce(Announcement a) {
        session.reply(new FtpReply(ReplyCode.FSP_ANNOUNCEMENT, ExtensionCodec.format(a)));
    }

    @Override
    public boolean awaitRoom() {
        return session.awaitReplyRoom();
    }
}
