package io.fsp.server.select;

import java.util.List;
import java.util.Objects;

/**
 * The relays chosen for one transfer.
 *
 * @param relays the endpoints, overlay hits first (in the order the query found them), then static ones
 * @param fromOverlay how many of {@code relays} came from the overlay
 * @param note why the static list was used, or empty when the overlay gave everything asked for
 */
public record RelayChoice(List<RelayEndpoint> relays, int fromOverlay, String note) {
    public RelayChoice {
        relays = List.copyOf(relays);
        Objects.requireNonNull(note, "note");
    }
}
