package io.fsp.server.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RelayEndpointTest {
    @Test
    void relayEndpointNeedsAFingerprint() {
        String fp = "AB:".repeat(31) + "AB";
        RelayEndpoint r = RelayEndpoint.parse("127.0.0.1:7001=" + fp);
        assertEquals("127.0.0.1:7001", r.hostPort());
        assertEquals(7001, RelayEndpoint.parse("[::1]:7001=" + fp).port());
        assertEquals("::1", RelayEndpoint.parse("[::1]:7001=" + fp).host());
        assertThrows(IllegalArgumentException.class, () -> RelayEndpoint.parse("127.0.0.1:7001"));
        assertThrows(IllegalArgumentException.class, () -> RelayEndpoint.parse("127.0.0.1:0=" + fp));
        assertThrows(IllegalArgumentException.class, () -> RelayEndpoint.parse("127.0.0.1:x=" + fp));
    }
}
