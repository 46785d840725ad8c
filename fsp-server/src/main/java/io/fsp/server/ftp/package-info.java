/**
 * The FTP control channel: request decoding (RFC 959 §4.1, strict UTF-8 as in RFC 2640), multi-line
 * replies (RFC 959 §4.2), explicit TLS (RFC 4217), and the session state that commands act on.
 */
package io.fsp.server.ftp;
