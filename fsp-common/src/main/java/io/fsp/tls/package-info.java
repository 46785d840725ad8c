/**
 * TLS for every FSP channel: certificates generated with Bouncy Castle at first start and kept as PEM,
 * SHA-256 certificate fingerprints for pinning (server to client, server to relay), and Netty SSL
 * contexts for TLS 1.2 and 1.3 (RFC 4217 for the FTP control and data channels).
 */
package io.fsp.tls;
