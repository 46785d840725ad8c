package io.fsp.server.ftp;

import io.fsp.ftp.ReplyCode;

/** Ends a command with a specific reply; thrown by command code, including work done off the event loop. */
public final class FtpReplyException extends java.io.IOException {
    private static final long serialVersionUID = 1L;
    private final transient FtpReply reply;

    public FtpReplyException(FtpReply reply) {
        super(reply.toString(), null);
        this.reply = reply;
    }

    public FtpReplyException(ReplyCode code, String text) {
        this(new FtpReply(code, text));
    }

    public FtpReply reply() {
        return reply;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // a reply, not a bug: no stack trace needed
    }
}
