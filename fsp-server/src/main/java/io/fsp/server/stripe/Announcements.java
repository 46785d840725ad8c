package io.fsp.server.stripe;

import io.fsp.extension.Announcement;

/**
 * Where a striped transfer's announcements go, in order: the engine says what it placed where as typed
 * {@link Announcement}s and knows nothing of how they reach the client (on FTP, {@code 151} lines on the
 * control channel). Called from the engine's thread and from relay connections' threads.
 */
@FunctionalInterface
public interface Announcements {
    void announce(Announcement a);
}
