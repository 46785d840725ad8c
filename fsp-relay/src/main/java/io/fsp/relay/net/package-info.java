/**
 * The relay's network side (docs/protocol.md §3): TLS on one port, servers recognised by a pinned client
 * certificate, clients by capability tokens; reading is paused while a request is served, so a full store
 * or a slow reader slows the peer down through TCP (paper 004 §3, striping and collection phases). Each frame a
 * peer sends is served by the job that registered it with the session ({@code TransferRequests},
 * {@code PutRequests}, {@code FetchRequests}).
 */
package io.fsp.relay.net;
