/**
 * Relay selection for striped transfers: multi-constraint queries over the Meridian overlay
 * {(server, d_s), (client, d_r)}, with the static relay list as fallback (docs/protocol.md §4.5).
 */
package io.fsp.server.select;
