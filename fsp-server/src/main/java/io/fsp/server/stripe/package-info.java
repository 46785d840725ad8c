/**
 * The FSP extension's striping engine (paper 004 §3): options of a striped transfer, the static relay list,
 * distribution strategies, and the engine that reads each file once, seals its blocks and places them on
 * relays (and, optionally, straight on the client's data connection) while announcing them on the control
 * channel (docs/protocol.md §1.x "FSP extension").
 */
package io.fsp.server.stripe;
