package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class SelectionRequestTest {
    @Test
    void parsesWhatFspGetSends() {
        SelectionRequest r = SelectionRequest.NONE.with(FspOptions.parse("near-sender=30 near-client=12.5 relays=3"
                + " client-probe=40000 meridian-entry=127.0.0.1:7400"));
        assertTrue(r.complete());
        assertEquals(new SelectionRequest(30, 12.5, 3, 40000, Optional.of(new InetSocketAddress("127.0.0.1", 7400))), r);
        assertEquals("near-sender=30 near-client=12.5 relays=3 client-probe=40000 meridian-entry=127.0.0.1:7400",
                r.describe());
        assertFalse(SelectionRequest.NONE.with(FspOptions.parse("relays=3")).complete(), "bounds and probe port are needed too");
    }

    @Test
    void whatTheClientSendsParsesBack() {
        SelectionRequest sent = new SelectionRequest(30, 12.5, 3, 40000, Optional.of(new InetSocketAddress("::1", 7400)));
        assertEquals(List.of("near-sender=30", "near-client=12.5", "relays=3", "meridian-entry=[::1]:7400",
                "client-probe=40000"), sent.options().words());
        assertEquals(sent, SelectionRequest.NONE.with(FspOptions.parse(sent.options().toString())));
        assertEquals(List.of(), SelectionRequest.NONE.options().words(), "nothing asked, nothing sent");
        assertEquals(List.of("near-sender=40", "near-client=40", "relays=1", "client-probe=9"),
                new SelectionRequest(40, 40, 1, 9, Optional.empty()).options().words(), "no entry: the server's own");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "near-sender|0|near-sender: 0 (expected: > 0 and <= 60000 ms)",
        "near-sender|60001|near-sender: 60001 (expected: > 0 and <= 60000 ms)",
        "near-client|-5|near-client: -5 (expected: milliseconds, e.g. 40 or 12.5)",
        "near-client|NaN|near-client: NaN (expected: milliseconds, e.g. 40 or 12.5)",
        "relays|65|relays: 65 (expected: 1..64)",
        "relays|0|relays: 0 (expected: 1..64)",
        "client-probe|70000|client-probe: 70000 (expected: 1..65535)",
        "meridian-entry|relay.example:7400|meridian-entry: relay.example:7400 (expected: a literal IP address)",
        "meridian-entry|127.0.0.1|meridian-entry: 127.0.0.1 (expected: IP:PORT)",
    })
    void badValuesNameTheKey(String key, String value, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FspOptions.parse(key + "=" + value));
        assertEquals(message, e.getMessage());
    }
}
