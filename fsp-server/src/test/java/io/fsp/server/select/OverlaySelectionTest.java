package io.fsp.server.select;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.tls.Fingerprint;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which overlay entry a client may name in its relay query. */
class OverlaySelectionTest {
    @Test
    void aClientMayNameOnlyTheConfiguredEntryOrOneOfTheRelays() {
        Fingerprint fp = new Fingerprint(new byte[32]);
        List<RelayEndpoint> relays = List.of(new RelayEndpoint("10.0.0.5", 7443, fp), new RelayEndpoint("::1", 7444, fp),
                new RelayEndpoint("relay.example", 7445, fp));
        Optional<InetSocketAddress> configured = Optional.of(new InetSocketAddress("10.0.0.9", 7400));
        assertTrue(OverlaySelection.allowsEntry(new InetSocketAddress("10.0.0.9", 7400), configured, relays));
        assertTrue(OverlaySelection.allowsEntry(new InetSocketAddress("10.0.0.5", 7443), configured, relays));
        assertTrue(OverlaySelection.allowsEntry(new InetSocketAddress("0:0:0:0:0:0:0:1", 7444), configured, relays));
        assertFalse(OverlaySelection.allowsEntry(new InetSocketAddress("10.0.0.5", 53), configured, relays), "another port");
        assertFalse(OverlaySelection.allowsEntry(new InetSocketAddress("10.0.0.6", 7443), configured, relays), "another host");
        assertFalse(OverlaySelection.allowsEntry(new InetSocketAddress("10.0.0.9", 7400), Optional.empty(), relays),
                "nothing configured");
        assertFalse(OverlaySelection.allowsEntry(new InetSocketAddress("127.0.0.1", 7445), configured, relays),
                "a relay given by name is not resolved for a client");
    }
}
