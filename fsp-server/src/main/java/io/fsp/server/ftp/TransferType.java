package io.fsp.server.ftp;

/** RFC 959 §3.1.1 representation types this server supports; ASCII is the default. */
public enum TransferType {
    /** TYPE A: line ends become CRLF on the wire and LF on disk. */
    ASCII,
    /** TYPE I: bytes as they are. */
    BINARY
}
