/**
 * The FSP extension's verbs (FSPO, FHAV, FPRI, FRET, FGET, FCOL; docs/protocol.md §1, "FSP extension"), which drive
 * the striping engine ({@code io.fsp.server.stripe}), relay selection ({@code io.fsp.server.select}) and collection
 * ({@code io.fsp.server.collect}), and write a striped transfer's announcements as {@code 151} lines on the control
 * channel ({@code ControlChannelAnnouncements}).
 */
package io.fsp.server.fsp;
