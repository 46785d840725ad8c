package io.fsp.cli;

import static io.fsp.cli.FspRun.fsp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MeridianCommandsTest {
    @Test
    void nodesShowsTheRingsOfAnEntryNode() throws Exception {
        MeridianConfig fast = MeridianConfig.builder().gossipInitialInterval(Duration.ofMillis(50)).build();
        InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 0);
        try (MeridianService a = MeridianService.start(loopback, List.of(), fast);
             MeridianService b = MeridianService.start(loopback, List.of(a.address()), fast)) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (a.rings().join().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            FspRun run = fsp("nodes", "127.0.0.1:" + a.address().getPort());
            assertEquals(0, run.exit(), run.err());
            assertTrue(run.out().contains("knows 1 nodes"), run.out());
            assertTrue(run.out().contains("127.0.0.1:" + b.address().getPort()), run.out());
            assertTrue(run.out().contains("primary"), run.out());
        }
    }

    @Test
    void nodesRejectsBadAddressAndReportsSilence() {
        assertEquals(2, fsp("nodes", "no-port").exit());
        assertEquals(2, fsp("nodes", "127.0.0.1:70000").exit());
        FspRun silent = fsp("nodes", "--timeout-ms", "300", "127.0.0.1:9");
        assertEquals(1, silent.exit());
        assertTrue(silent.err().contains("no answer from"), silent.err());
    }
}
