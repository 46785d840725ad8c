/**
 * Capability tokens for relays: the server registers a random per-transfer key with each relay over its
 * authenticated TLS connection, and hands the client an HMAC-SHA256 over (transfer id, expiry, scope) on the
 * TLS control channel; a relay serves blocks only to a holder of a valid token (architecture §4.3, paper 004
 * §3.5: relays authenticate their peers and never see plaintext).
 */
package io.fsp.token;
