package io.fsp.tls;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The warm-up's throw-away session completes its handshake and opens every record it sends. */
class TlsWarmUpTest {
    @Test
    void handshakesAndOpensEveryRecordWithTheServersOwnContext() throws Exception {
        KeyMaterial key = Certificates.selfSigned("server");
        // run() fails if the client opened other than what the server sealed (the first record shares a packet)
        assertTrue(TlsWarmUp.run(SslContexts.server(key), 50) > 49L * 16 * 1024);
        assertTrue(TlsWarmUp.run(SslContexts.serverWithoutSessionTickets(key), 50) > 49L * 16 * 1024);
    }
}
