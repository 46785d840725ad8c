/**
 * A relay joining a server with a one-time code (docs/protocol.md, "JOIN"): the code's format, the J-PAKE exchange
 * it keys and the key-confirmation MACs that bind both certificate fingerprints. The server's side runs behind the
 * JOIN verb, the relay's in {@code fsp-relay join}.
 */
package io.fsp.join;
