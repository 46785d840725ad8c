package io.fsp.server.ftp.data;

import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.ReplyCode;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;

/**
 * A transfer in progress, between its 150 and its final reply. It ends exactly once: completed (226),
 * failed (425, 426, 451…), or aborted by ABOR or by the control connection closing.
 */
public final class Transfer {
    private final FtpSession session;
    private final String description;
    private final long startNanos = System.nanoTime();
    private Future<Channel> connecting;
    private Channel channel;
    private boolean aborted;
    private boolean finished;

    Transfer(FtpSession session, String description) {
        this.session = session;
        this.description = description;
    }

    public String description() {
        return description;
    }

    public boolean isAborted() {
        return aborted;
    }

    public boolean isFinished() {
        return finished;
    }

    long elapsedNanos() {
        return System.nanoTime() - startNanos;
    }

    void connecting(Future<Channel> f) {
        this.connecting = f;
    }

    void channel(Channel ch) {
        this.channel = ch;
    }

    /**
     * Stops the transfer: closes the data connection and, if {@code reply}, answers the transfer command
     * with 426 (ABOR then answers 226 itself).
     */
    public void abort(boolean reply) {
        if (finished) {
            return;
        }
        aborted = true;
        if (connecting != null) {
            connecting.cancel(false);
        }
        if (channel != null) {
            channel.close();
        }
        if (reply) {
            finish(new FtpReply(ReplyCode.TRANSFER_ABORTED, "Transfer aborted; data connection closed"));
        } else {
            finished = true;
            session.transfer(null);
        }
    }

    /** Sends the final reply, once. */
    void finish(FtpReply reply) {
        if (finished) {
            return;
        }
        finished = true;
        session.transfer(null);
        if (session.channel().isActive()) {
            session.reply(reply);
        }
    }
}
