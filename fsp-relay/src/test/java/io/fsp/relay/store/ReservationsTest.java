package io.fsp.relay.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReservationsTest {
    private static final Fingerprint A = Certificates.selfSigned("server a").fingerprint();
    private static final Fingerprint B = Certificates.selfSigned("server b").fingerprint();
    /** Quota 1000, a server's share 600, of which 300 for its retained transfers. */
    private final Reservations reservations = new Reservations(new StoreConfig(Path.of("unused"), 1000, 0,
            Duration.ofMinutes(1), 600, 600, StoreConfig.DEFAULT_MAX_RETAIN, 300));

    @Test
    void aServerReservesUpToItsShareAndTheOthersUpToTheQuota() {
        assertTrue(reservations.admits(A, false, 600));
        assertFalse(reservations.admits(A, false, 601), "beyond the server's share");
        reservations.add(A, false, 600);
        assertFalse(reservations.admits(A, false, 1));
        assertTrue(reservations.admits(B, false, 400));
        assertFalse(reservations.admits(B, false, 401), "beyond the quota, within B's share");
        reservations.add(B, false, 400);
        assertEquals(1000, reservations.total());
        assertEquals(600, reservations.byServer(A));
        assertEquals(400, reservations.byServer(B));
    }

    @Test
    void retainedTransfersOfAServerStayWithinTheirOwnShareOfItsShare() {
        reservations.add(A, true, 300);
        assertFalse(reservations.admits(A, true, 1), "the retained share is full");
        assertTrue(reservations.admits(A, false, 300), "transfers that are not retained use the rest of the share");
        assertTrue(reservations.admits(B, true, 300), "another server has retained space of its own");
        assertEquals(300, reservations.retainedBy(A));
        assertEquals(0, reservations.retainedBy(B));
    }

    @Test
    void whatIsGivenBackCanBeReservedAgain() {
        reservations.add(A, true, 300);
        reservations.add(A, false, 300);
        reservations.add(A, true, -100); // a finished retained transfer shrinks to what it holds
        assertEquals(200, reservations.retainedBy(A));
        assertEquals(500, reservations.byServer(A));
        assertTrue(reservations.admits(A, true, 100));
        reservations.add(A, true, -200);
        reservations.add(A, false, -300);
        assertEquals(0, reservations.total());
        assertEquals(0, reservations.byServer(A));
        assertEquals(0, reservations.retainedBy(A));
        assertTrue(reservations.admits(A, true, 300));
    }
}
