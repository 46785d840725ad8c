package io.fsp.server.ftp.data;

import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpSession;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.RunningTransfer;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A transfer in progress, between its 150 and its final reply. It ends exactly once: completed (226),
 * failed (425, 426, 451…), or aborted by ABOR or by the control connection closing. The final reply is
 * sent only after the transfer cleaned up (file closed, partial upload removed), so a client that sees it
 * also sees the file system as it stays.
 */
public final class Transfer implements RunningTransfer {
    /** An abort that has not finished the transfer by then is answered anyway. */
    private static final long ABORT_GRACE_SECONDS = 5;

    private final FtpSession session;
    private final String description;
    private final long startNanos = System.nanoTime();
    private final List<Runnable> whenFinished = new ArrayList<>();
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
     * Stops the transfer by closing its data connection; it then ends with 426 through its usual path
     * (cleanup first). {@code reply} false means nobody is left to answer (the control connection closed).
     */
    @Override
    public void abort(boolean reply) {
        if (finished || aborted) {
            return;
        }
        aborted = true;
        if (connecting != null) {
            connecting.cancel(false);
        }
        if (channel != null) {
            channel.close();
        }
        session.channel().eventLoop().schedule(() -> finish(abortedReply()), ABORT_GRACE_SECONDS, TimeUnit.SECONDS);
    }

    static FtpReply abortedReply() {
        return new FtpReply(ReplyCode.TRANSFER_ABORTED, "Transfer aborted; data connection closed");
    }

    /** Runs {@code r} once the transfer has sent its final reply (ABOR answers 226 after the 426). */
    @Override
    public void whenFinished(Runnable r) {
        if (finished) {
            r.run();
        } else {
            whenFinished.add(r);
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
        whenFinished.forEach(Runnable::run);
        whenFinished.clear();
    }
}
