package io.fsp.client.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.testkit.control.ScriptedServer;
import io.fsp.tls.PinnedTrustManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reading replies on a real loopback TLS connection from a server that plays a script. */
class ControlChannelTest {
    private static final Duration REPLY = Duration.ofSeconds(5);

    /** Lines of every length, in TLS records that cut them anywhere, come back whole and in order. */
    @Test
    void linesCutAnywhereAreReadWhole() throws Exception {
        List<String> lines = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            text.append((char) ('a' + i % 26));
            lines.add("200 " + text.substring(0, i % 2000) + (i % 7 == 0 ? "é" : ""));
        }
        try (ScriptedServer server = ScriptedServer.start(line -> line.equals("LINES") ? lines : List.of());
             ControlChannel control = connect(server)) {
            control.send("LINES");
            for (String expected : lines) {
                Reply r = control.read();
                assertEquals(200, r.code());
                assertEquals(expected.substring(4), r.text());
            }
        }
    }

    /** A line of MAX_LINE bytes is read; one byte more is refused, naming the limit. */
    @Test
    void aLineLongerThanTheLimitIsRefused() throws Exception {
        String longest = "200 " + "x".repeat(ControlChannel.MAX_LINE - 5); // with its CR: MAX_LINE bytes
        String tooLong = "200 " + "y".repeat(ControlChannel.MAX_LINE - 3);
        try (ScriptedServer server = ScriptedServer.start(line -> line.equals("LONG") ? List.of(longest, tooLong)
                : List.of());
             ControlChannel control = connect(server)) {
            control.send("LONG");
            assertEquals(longest.substring(4), control.read().text());
            ControlException e = assertThrows(ControlException.class, control::read);
            assertTrue(e.getMessage().contains("more than " + ControlChannel.MAX_LINE + " bytes"), e.getMessage());
        }
    }

    private static ControlChannel connect(ScriptedServer server) throws java.io.IOException {
        return ControlChannel.connect("127.0.0.1", server.port(), PinnedTrustManager.of(Set.of(server.fingerprint())), REPLY);
    }
}
