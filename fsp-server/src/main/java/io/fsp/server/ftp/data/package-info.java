/**
 * FTP data connections: passive (PASV, EPSV — RFC 959 §4.1.2, RFC 2428 §3) and active (PORT, EPRT — RFC 2428
 * §2), accepted only from the control connection's peer; TLS on them (PROT P, RFC 4217 §9); and the
 * transfers themselves: zero-copy file regions when nothing needs to touch the bytes, chunked reads
 * otherwise, and uploads written off the event loop with back-pressure.
 */
package io.fsp.server.ftp.data;
