package io.fsp.server.stripe;

import io.fsp.extension.SelectionRequest;
import io.fsp.extension.TransferOptions;
import io.fsp.token.TransferId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One control session's FSP state: its options, what the next FRET is told (FHAV, FPRI) and its recent transfers
 * (for origin re-fetches).
 */
public final class StripeSession {
    private static final int KEPT_TRANSFERS = 4;
    /** Names FPRI may give the next FRET, so that a session cannot make the server hold unbounded state. */
    public static final int MAX_PRIORITIES = 10_000;
    /** And at most this many characters of them together (10,000 names of 4 KiB would be 40 MB per session). */
    public static final int MAX_PRIORITY_CHARS = 1 << 20;

    private volatile TransferOptions options = TransferOptions.DEFAULTS;
    private volatile SelectionRequest selection = SelectionRequest.NONE;
    private final Map<TransferId, StripedTransfer> transfers = new LinkedHashMap<>();
    private ResumeClaim resumeClaim;
    private List<String> priorities = new ArrayList<>();
    private int priorityChars;

    public TransferOptions options() {
        return options;
    }

    public void options(TransferOptions o) {
        this.options = o;
    }

    /** How the client asked to select relays by RTT (FSPO near-sender, near-client, relays, client-probe). */
    public SelectionRequest selection() {
        return selection;
    }

    public void selection(SelectionRequest s) {
        this.selection = s;
    }

    /** The claim FHAV lines are adding to, a new one when the manifest differs from the pending one's. */
    public synchronized ResumeClaim resumeClaim(String manifestDigest) {
        if (resumeClaim == null || !resumeClaim.manifestDigest().equals(manifestDigest)) {
            resumeClaim = new ResumeClaim(manifestDigest);
        }
        return resumeClaim;
    }

    /** The pending claim for the next FRET, which consumes it; null if none. */
    public synchronized ResumeClaim takeResumeClaim() {
        ResumeClaim c = resumeClaim;
        resumeClaim = null;
        return c;
    }

    /**
     * Adds a name (FPRI) for the next FRET to send first; returns how many are pending. Throws
     * {@link IllegalArgumentException} beyond {@link #MAX_PRIORITIES} names or {@link #MAX_PRIORITY_CHARS} characters.
     */
    public synchronized int prioritize(String name) {
        if (priorities.size() >= MAX_PRIORITIES) {
            throw new IllegalArgumentException("FPRI: more than " + MAX_PRIORITIES + " names for one FRET (expected: <= "
                    + MAX_PRIORITIES + ")");
        }
        if (priorityChars + name.length() > MAX_PRIORITY_CHARS) {
            throw new IllegalArgumentException("FPRI: names of more than " + MAX_PRIORITY_CHARS + " characters together for"
                    + " one FRET (expected: <= " + MAX_PRIORITY_CHARS + "; name a directory instead of its files)");
        }
        priorities.add(name);
        priorityChars += name.length();
        return priorities.size();
    }

    /** The names FPRI gave, in command order, for the next FRET, which consumes them. */
    public synchronized List<String> takePriorities() {
        List<String> p = priorities;
        priorities = new ArrayList<>();
        priorityChars = 0;
        return p;
    }

    /**
     * Keeps {@code t} for re-fetches (FGET) beside the session's latest transfers; the oldest beyond
     * {@value #KEPT_TRANSFERS} is forgotten, and its share of the server's plan budget given back once it ended.
     */
    public void remember(StripedTransfer t) {
        List<StripedTransfer> forgotten = new ArrayList<>();
        synchronized (this) {
            transfers.put(t.id(), t);
            while (transfers.size() > KEPT_TRANSFERS) {
                forgotten.add(transfers.remove(transfers.keySet().iterator().next()));
            }
        }
        forgotten.forEach(f -> f.charge().forgotten()); // outside this lock: the budget's comes first
    }

    /** Forgets transfer {@code id} (the server's plan budget needed its room): a re-fetch of it is refused. */
    public void forget(TransferId id) {
        StripedTransfer t;
        synchronized (this) {
            t = transfers.remove(id);
        }
        if (t != null) {
            t.charge().forgotten();
        }
    }

    /** The control connection closed: every transfer is forgotten. */
    public void forgetAll() {
        List<StripedTransfer> all;
        synchronized (this) {
            all = new ArrayList<>(transfers.values());
            transfers.clear();
        }
        all.forEach(t -> t.charge().forgotten());
    }

    public synchronized Optional<StripedTransfer> transfer(TransferId id) {
        return Optional.ofNullable(transfers.get(id));
    }
}
