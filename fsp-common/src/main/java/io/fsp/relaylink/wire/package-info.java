/**
 * The relay protocol (docs/protocol.md §3): length-prefixed binary frames over TLS between a server that
 * pushes blocks, a relay that holds them, and a client that fetches and confirms them (paper 004 §3,
 * striping and collection phases). Block bytes are opaque here: encrypted and checksummed by the block
 * format, they travel with the transfer id and sequence number of the relay frame.
 */
package io.fsp.relaylink.wire;
