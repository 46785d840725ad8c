/**
 * The relay daemon {@code fsp-relay}: an intermediate node that holds encrypted blocks of striped transfers
 * for trusted servers until the client has collected them (paper 004 §3; docs/protocol.md §3).
 */
package io.fsp.relay;
