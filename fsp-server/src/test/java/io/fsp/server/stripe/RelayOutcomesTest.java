package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionLimits;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.RelayTimeoutException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.server.select.RelayEndpoint;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class RelayOutcomesTest {
    private static final InetSocketAddress AT = new InetSocketAddress("127.0.0.1", 7001);
    private static final RelayEndpoint RELAY = RelayEndpoint.parse("127.0.0.1:7001=AB:" + "CD:".repeat(30) + "EF");

    @Test
    void aRefusalCarriesTheRelaysCodeAndWordsElseHowTheConnectionFailed() {
        assertEquals(new Announcement.Refused("127.0.0.1", 7001, "RETENTION_TOO_LONG", "at most 1d (--max-retain)"),
                RelayOutcomes.refused(RELAY, new ExecutionException(new RelayRefusedException(AT,
                        RelayErrorCode.RETENTION_TOO_LONG, "at most 1d (--max-retain)"))));
        assertEquals(new Announcement.Refused("127.0.0.1", 7001, "UNREACHABLE", "Connection refused"),
                RelayOutcomes.refused(RELAY, new ExecutionException(new ConnectException("Connection refused"))));
        assertEquals("TIMEOUT", RelayOutcomes.refused(RELAY, new TimeoutException()).reason());
        assertEquals("TimeoutException", RelayOutcomes.refused(RELAY, new TimeoutException()).text());
    }

    @Test
    void aStopSaysFullFailedOrTimedOut() {
        assertEquals(new Announcement.Stopped(2, "NO_SPACE", "beyond its reservation"), RelayOutcomes.stopped(2,
                new CompletionException(new RelayRefusedException(AT, RelayErrorCode.NO_SPACE, "beyond its reservation"))));
        assertEquals("TIMEOUT", RelayOutcomes.stopped(0, new RelayTimeoutException(AT, "no answer")).reason());
        assertEquals("FAILED", RelayOutcomes.stopped(0, new java.io.IOException("reset")).reason());
        assertEquals(ExtensionLimits.MAX_REASON_TEXT,
                RelayOutcomes.stopped(0, new java.io.IOException("x".repeat(5000))).text().length());
    }
}
