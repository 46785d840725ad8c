package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The configured limits hold: an idle control connection is closed, and connections beyond the
 * per-address and total limits are refused with 421 while others are still served.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LimitsIT {
    private static final int PER_ADDRESS = 3;
    private static final int TOTAL = 5;

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed()
            .with("--idle-timeout", "2s",
                    "--max-connections-per-address", String.valueOf(PER_ADDRESS),
                    "--max-connections", String.valueOf(TOTAL));

    @Test
    void idleControlConnectionIsClosed() throws Exception {
        try (ControlConnection c = ControlConnection.login(SERVER.server().ipv4(), FtpServerExtension.USER,
                FtpServerExtension.PASSWORD, SERVER.transcript())) {
            long start = System.nanoTime();
            Reply goodbye = c.readReply(); // nothing sent: the next thing from the server is its timeout
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            goodbye.assertCode(421);
            assertTrue(waited >= 1500, "closed after the 2 s idle timeout, not before: " + waited + " ms");
            assertTrue(c.closedByServer(5000), "421 closes the connection");
        }
    }

    @Test
    void connectionsBeyondLimitsAreRefusedWith421() throws Exception {
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < PER_ADDRESS; i++) {
                open.add(connect(null));
                assertEquals("220", greeting(open.get(i)).substring(0, 3), "connection " + (i + 1) + " is welcome");
            }
            Socket fourth = connect(null);
            open.add(fourth);
            assertRefused(greeting(fourth), "over the per-address limit of " + PER_ADDRESS);

            Socket other1 = connect(InetAddress.getByName("127.0.0.2"));
            Socket other2 = connect(InetAddress.getByName("127.0.0.3"));
            open.add(other1);
            open.add(other2);
            assertEquals("220", greeting(other1).substring(0, 3), "another address is welcome");
            assertEquals("220", greeting(other2).substring(0, 3), "another address is welcome");
            Socket sixth = connect(InetAddress.getByName("127.0.0.4"));
            open.add(sixth);
            assertRefused(greeting(sixth), "over the total limit of " + TOTAL);
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
        // With the others gone, a new client is served again (the server may take a moment to notice).
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            try (Socket s = connect(null)) {
                String line = greeting(s);
                if (line.startsWith("220")) {
                    break;
                }
                assertTrue(System.currentTimeMillis() < deadline, "served again after the others left: " + line);
            }
            Thread.sleep(200);
        }
    }

    private static void assertRefused(String greeting, String why) {
        assertTrue(greeting.startsWith("421") || greeting.isEmpty(), why + ": \"" + greeting + "\" (expected: 421 or close)");
    }

    private static Socket connect(InetAddress from) throws IOException {
        Socket s = new Socket();
        if (from != null) {
            s.bind(new InetSocketAddress(from, 0));
        }
        s.connect(SERVER.server().ipv4(), 5000);
        s.setSoTimeout(10_000);
        return s;
    }

    /** The first line the server sends; empty if it closed the connection instead. */
    private static String greeting(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        try {
            int b;
            while ((b = in.read()) >= 0 && b != '\n') {
                line.write(b);
            }
        } catch (SocketException e) {
            return "";
        }
        return line.toString(StandardCharsets.UTF_8).trim();
    }
}
