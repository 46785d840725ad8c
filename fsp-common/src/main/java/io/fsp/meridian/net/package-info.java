/**
 * Meridian over UDP with Netty: the embeddable {@link io.fsp.meridian.net.MeridianService}, a
 * {@link io.fsp.meridian.net.ProbeResponder} for endpoints that only need to be measured, and the
 * datagram handler both share (docs/protocol.md §4).
 */
package io.fsp.meridian.net;
