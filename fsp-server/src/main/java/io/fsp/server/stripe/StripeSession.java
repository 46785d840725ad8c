package io.fsp.server.stripe;

import io.fsp.server.select.SelectionRequest;
import io.fsp.token.TransferId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** One control session's FSP state: its options and its recent transfers (for origin re-fetches). */
public final class StripeSession {
    private static final int KEPT_TRANSFERS = 4;

    private volatile StripeOptions options = StripeOptions.DEFAULTS;
    private volatile SelectionRequest selection = SelectionRequest.NONE;
    private final Map<TransferId, StripedTransfer> transfers = new LinkedHashMap<>();
    private ResumeClaim resumeClaim;

    public StripeOptions options() {
        return options;
    }

    public void options(StripeOptions o) {
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

    public synchronized void remember(StripedTransfer t) {
        transfers.put(t.id(), t);
        while (transfers.size() > KEPT_TRANSFERS) {
            transfers.remove(transfers.keySet().iterator().next());
        }
    }

    public synchronized Optional<StripedTransfer> transfer(TransferId id) {
        return Optional.ofNullable(transfers.get(id));
    }
}
