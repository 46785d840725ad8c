/**
 * FCOL on the server: collecting another server's transfer from its relays into a user's root, from the
 * announcements the client forwards, with limits on how many run and cleanup of what a dead server left.
 */
package io.fsp.server.collect;
