/**
 * The FSP extension's striping engine (paper 004 §3): options of a striped transfer, the plan of its blocks,
 * distribution strategies, and the engine that reads each file once, seals its blocks and places them on
 * relays (and, optionally, straight on the client's data connection), saying where each went as typed
 * announcements ({@link io.fsp.extension.Announcement}) to an {@link io.fsp.server.stripe.Announcements}
 * sink. It knows nothing of FTP: the commands in {@code io.fsp.server.fsp} drive it and write the
 * announcements to the control channel (docs/protocol.md §1, "FSP extension").
 */
package io.fsp.server.stripe;
