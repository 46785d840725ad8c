/**
 * The peer side of the relay protocol (docs/protocol.md §3): {@link io.fsp.relaylink.RelayConnection}
 * lets a server open transfers and push blocks with back-pressure, and lets a client fetch and confirm
 * blocks with a capability token. Faults arrive as typed {@link io.fsp.relaylink.RelayException}s.
 */
package io.fsp.relaylink;
