/**
 * End-to-end block encryption keys and nonces (paper 004 §3.5): the key travels over the TLS control channel,
 * relays never hold it.
 */
package io.fsp.crypto;
