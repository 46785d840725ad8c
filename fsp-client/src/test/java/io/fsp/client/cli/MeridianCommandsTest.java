package io.fsp.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

@Timeout(30)
class MeridianCommandsTest {
    private record Run(int exit, String out, String err) { }

    private static Run fsp(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new FspCli());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

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
            Run run = fsp("nodes", "127.0.0.1:" + a.address().getPort());
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
        Run silent = fsp("nodes", "--timeout-ms", "300", "127.0.0.1:9");
        assertEquals(1, silent.exit());
        assertTrue(silent.err().contains("no answer from"), silent.err());
    }
}
