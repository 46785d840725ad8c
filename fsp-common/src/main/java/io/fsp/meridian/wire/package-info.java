/**
 * The Meridian overlay's datagram format: one message per UDP datagram, strict size limits, malformed
 * input rejected with a {@link io.fsp.meridian.wire.MeridianFormatException} (docs/protocol.md §4).
 */
package io.fsp.meridian.wire;
