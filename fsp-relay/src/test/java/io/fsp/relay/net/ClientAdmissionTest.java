package io.fsp.relay.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fsp.token.TransferId;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The per-address cap on client connections counts an IPv6 host by its /64: the addresses of one /64 are one peer's to
 * choose from, so they share one count. (Over loopback only IPv4 addresses can be told apart:
 * {@code RelayAdmissionTest.oneAddressHoldsAtMostItsShareOfClientConnections} runs the cap over real sockets.)
 */
class ClientAdmissionTest {
    private final ClientAdmission admission = new ClientAdmission(
            ConnectionPolicy.DEFAULT.withClientConnections(64, 4, 2, 32));

    @Test
    void theAddressesOfOneIpv6Slash64ShareOneCount() throws Exception {
        TransferId t = TransferId.random();
        assertNull(admission.admit(InetAddress.getByName("2001:db8:1:2::1"), false, t));
        assertNull(admission.admit(InetAddress.getByName("2001:db8:1:2::2"), false, t));
        ClientAdmission.Refusal third = admission.admit(InetAddress.getByName("2001:db8:1:2:ffff::3"), false, t);
        assertNotNull(third, "a third address of the same /64 is the same host");
        assertEquals("max-client-connections-per-address", third.limit());
        assertNull(admission.admit(InetAddress.getByName("2001:db8:1:3::1"), false, t), "the next /64 is another");

        // A connection that closes gives its slot back to its /64, whichever of its addresses it came from.
        admission.release(InetAddress.getByName("2001:db8:1:2::1"), List.of(t));
        assertNull(admission.admit(InetAddress.getByName("2001:db8:1:2::99"), false, t));
        assertEquals(3, admission.clients());
    }

    @Test
    void ipv4AddressesAreCountedOneByOne() throws Exception {
        TransferId t = TransferId.random();
        for (int i = 1; i <= 2; i++) {
            assertNull(admission.admit(InetAddress.getByName("192.0.2." + i), false, t));
            assertNull(admission.admit(InetAddress.getByName("192.0.2." + i), false, t));
            assertNotNull(admission.admit(InetAddress.getByName("192.0.2." + i), false, t));
        }
    }
}
