/**
 * The FSP extension of the FTP control channel (docs/protocol.md §1, "FSP extension") as types: the FSPO keys,
 * each declared once ({@link io.fsp.extension.FspOption}) and carried as typed pairs ({@link io.fsp.extension.FspOptions}),
 * the {@code 151} lines FRET announces ({@link io.fsp.extension.Announcement}), the byte ranges a resuming client
 * claims with FHAV ({@link io.fsp.extension.HeldRanges}, {@link io.fsp.extension.ByteRange}), the blocks it
 * fetches again from the origin with FGET ({@link io.fsp.extension.FgetRequest}), the relays it asks for by RTT
 * ({@link io.fsp.extension.SelectionRequest}), the manifest both ends
 * compare ({@link io.fsp.extension.Manifest}), and the one codec that writes and reads them, with
 * one set of limits ({@link io.fsp.extension.ExtensionLimits}), used by the server and the client alike.
 */
package io.fsp.extension;
