/**
 * The client's FTP control channel: explicit TLS (RFC 4217 AUTH TLS) pinned to the server's certificate
 * fingerprint, login, replies (RFC 959 §4.2), and the FSP extension commands (docs/protocol.md §1, "FSP extension").
 */
package io.fsp.client.control;
