package io.fsp.server.collect;

import java.util.HashMap;
import java.util.Map;

/**
 * How many FCOL collections run at once, on this server and per user: each holds relay connections, fetch
 * threads and buffers for as long as it runs, so an authenticated user can make the server spend only so much.
 * An account's second (or later) collection never takes the server's last free slot: that one stays for an account
 * that runs none, so that two accounts whose collections trickle cannot hold every slot until their
 * {@code collect-timeout}.
 */
public final class CollectionSlots {
    private final int perServer;
    private final int perUser;
    private final Map<String, Integer> byUser = new HashMap<>();
    private int running;

    public CollectionSlots(int perServer, int perUser) {
        this.perServer = perServer;
        this.perUser = perUser;
    }

    /** Takes a slot for {@code user}; null if one was free, else why not. */
    public synchronized String tryTake(String user) {
        if (running >= perServer) {
            return "this server runs " + running + " collections (at most " + perServer + ")";
        }
        int mine = byUser.getOrDefault(user, 0);
        if (mine >= perUser) {
            return "this account runs " + mine + " collections (at most " + perUser + ")";
        }
        if (mine > 0 && running == perServer - 1) {
            return "this account runs " + mine + " collection(s) and the server's last free slot is kept for an"
                    + " account that runs none";
        }
        running++;
        byUser.put(user, mine + 1);
        return null;
    }

    public synchronized void release(String user) {
        running--;
        byUser.computeIfPresent(user, (u, n) -> n == 1 ? null : n - 1);
    }
}
