package io.fsp.server.ftp;

/** What the request decoder makes of one line: a request, or a line it could not accept. */
public sealed interface FtpRequestLine permits FtpRequest, MalformedRequest {
}
