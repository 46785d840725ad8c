package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --passive-ports} and {@code --announce-address}: PASV names the configured address and
 * ports come from the range only; when the range is used up PASV fails cleanly and recovers once
 * a port is free again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PassivePortsIT {
    /**
     * Outside the kernel's ephemeral range (32768-60999), so no client socket takes these ports;
     * drawn at random so that two test runs on one machine are unlikely to share them.
     */
    private static final int LOW = 65100 + 4 * new Random().nextInt(100);
    private static final int HIGH = LOW + 3;

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed()
            .with("--passive-ports", LOW + "-" + HIGH, "--announce-address", "127.0.0.5");

    private ControlConnection login() throws Exception {
        return ControlConnection.login(SERVER.server().ipv4(), FtpServerExtension.USER, FtpServerExtension.PASSWORD,
                SERVER.transcript());
    }

    @Test
    void pasvAnnouncesConfiguredAddressAndRangePort() throws Exception {
        byte[] data = "range\n".getBytes(StandardCharsets.US_ASCII);
        TestTree.write(SERVER.tree().dir("ports").resolve("f.txt"), data);
        try (ControlConnection c = login()) {
            InetSocketAddress announced = c.passive();
            assertEquals("127.0.0.5", announced.getAddress().getHostAddress(), "PASV names --announce-address");
            assertTrue(announced.getPort() >= LOW && announced.getPort() <= HIGH, "port in range: " + announced);

            c.send("TYPE I").assertCode(200);
            InetSocketAddress extended = c.extendedPassive();
            assertTrue(extended.getPort() >= LOW && extended.getPort() <= HIGH, "EPSV port in range: " + extended);
            try (Socket d = ControlConnection.openData(extended)) {
                c.sendLine("RETR /ports/f.txt");
                c.readReply().assertCodeIn(125, 150);
                assertArrayEquals(data, d.getInputStream().readAllBytes());
            }
            c.readReply().assertCode(226);
        }
    }

    @Test
    void exhaustedRangeFailsCleanlyAndRecovers() throws Exception {
        List<ControlConnection> sessions = new ArrayList<>();
        try {
            Set<Integer> ports = new HashSet<>();
            for (int i = LOW; i <= HIGH; i++) {
                ControlConnection c = login();
                sessions.add(c);
                ports.add(c.extendedPassive().getPort());
            }
            assertEquals(HIGH - LOW + 1, ports.size(), "each session holds its own port: " + ports);

            ControlConnection extra = login();
            sessions.add(extra);
            extra.send("EPSV").assertCodeIn(421, 425, 451, 500, 550);
            extra.send("NOOP").assertCode(200);

            sessions.get(0).send("QUIT").assertCode(221);
            sessions.get(0).close();
            long deadline = System.currentTimeMillis() + 5000;
            int code;
            do {
                Thread.sleep(100);
                code = extra.send("EPSV").code();
            } while (code != 229 && System.currentTimeMillis() < deadline);
            assertEquals(229, code, "a port freed by QUIT is reused");
        } finally {
            for (ControlConnection c : sessions) {
                c.close();
            }
        }
    }
}
