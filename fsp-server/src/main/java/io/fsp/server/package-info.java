/**
 * The FSP server: {@link io.fsp.server.FspServer} (start, addresses, fingerprint, close), the {@code fsp-server}
 * command line and configuration reload; the configuration itself is {@link io.fsp.server.config.ServerConfig}
 * (one key per component).
 */
package io.fsp.server;
