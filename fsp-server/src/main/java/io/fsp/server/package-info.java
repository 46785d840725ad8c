/**
 * The FSP server: {@link io.fsp.server.FspServer} (start, addresses, fingerprint, close), its configuration
 * ({@link io.fsp.server.ServerConfig}, one key per component) and the {@code fsp-server} command line.
 */
package io.fsp.server;
