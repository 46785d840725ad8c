/**
 * The Meridian overlay's datagram format: one message per UDP datagram, strict size limits, malformed
 * input rejected with a {@link io.fsp.meridian.wire.MeridianFormatException} (docs/protocol.md §4); and the values
 * the messages carry (ring entries, query constraints and hits, a relay's service).
 */
package io.fsp.meridian.wire;
