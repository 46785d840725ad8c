package io.fsp.server.ftp;

/** A line that is not a request (too long, not UTF-8, no verb); it is answered with {@link #reply()}. */
public record MalformedRequest(FtpReply reply) implements FtpRequestLine {
}
