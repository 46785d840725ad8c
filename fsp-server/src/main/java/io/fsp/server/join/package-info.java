/**
 * Relays that join with a one-time code (docs/operating.md, "Joining a relay"): the invites and the joined relays,
 * each a file in the server's state directory that {@code fsp-server invite} and {@code fsp-server relays} change and
 * the running server reads, and the server's side of the JOIN exchange ({@link io.fsp.server.join.JoinService}).
 */
package io.fsp.server.join;
