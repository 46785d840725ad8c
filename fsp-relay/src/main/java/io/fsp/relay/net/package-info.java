/**
 * The relay's network side (docs/protocol.md §3): TLS on one port, servers recognised by a pinned client
 * certificate, clients by capability tokens; reading is paused while a request is served, so a full store
 * or a slow reader slows the peer down through TCP (paper 004 §3, striping and collection phases).
 */
package io.fsp.relay.net;
