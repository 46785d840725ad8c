package io.fsp.server.stripe;

import io.fsp.token.TransferId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** One control session's FSP state: its options and its recent transfers (for origin re-fetches). */
public final class StripeSession {
    private static final int KEPT_TRANSFERS = 4;

    private volatile StripeOptions options = StripeOptions.DEFAULTS;
    private final Map<TransferId, StripedTransfer> transfers = new LinkedHashMap<>();

    public StripeOptions options() {
        return options;
    }

    public void options(StripeOptions o) {
        this.options = o;
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
