package io.fsp.server.stripe;

import io.fsp.extension.Announcement;

/**
 * Where a striped transfer's announcements go, in order: the engine says what it placed where as typed
 * {@link Announcement}s and knows nothing of how they reach the client (on FTP, {@code 151} lines on the
 * control channel). {@link #announce} is called from the engine's thread and from relay connections' threads.
 */
public interface Announcements {
    void announce(Announcement a);

    /**
     * Waits while the client is not reading the announcements already sent (back-pressure: the engine reads
     * no further block meanwhile); false once the client is gone or the thread is interrupted.
     */
    boolean awaitRoom();

    /**
     * Nothing more will be announced: every block is placed ({@code complete}), or striping failed; called once,
     * before the transfer's end is reported. An evacuation's announcements send their last signature here, which
     * says which of the two it was.
     */
    default void end(boolean complete) {
    }
}
