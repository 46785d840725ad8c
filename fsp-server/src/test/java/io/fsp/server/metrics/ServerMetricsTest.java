package io.fsp.server.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The per-user byte counters keep their labels bounded; the running-transfers gauge goes up and down. */
class ServerMetricsTest {
    @Test
    void userLabelsAreCappedAndTheRestFoldIntoOther() {
        ServerMetrics m = new ServerMetrics(() -> 0, 2);
        m.sent(ServerMetrics.RELAY, "alice").accept(100);
        m.sent(ServerMetrics.DIRECT, "bob").accept(10);
        for (int i = 0; i < 1000; i++) { // names past the cap make no new series
            m.sent(ServerMetrics.FTP, "mallory" + i).accept(1);
        }
        m.sent(ServerMetrics.FTP, "alice").accept(5); // a labelled user keeps its label
        m.sent(ServerMetrics.RELAY, null).accept(7); // nobody logged in
        m.sent(ServerMetrics.RELAY, "alice").accept(0);

        Map<String, Double> perUser = counter(m, "fsp_server_user_sent_bytes");
        assertEquals(Map.of("path=direct,user=bob", 10.0, "path=ftp,user=(other)", 1000.0, "path=ftp,user=alice", 5.0,
                "path=relay,user=(other)", 7.0, "path=relay,user=alice", 100.0), perUser);
        Map<String, Double> byPath = counter(m, "fsp_server_sent_bytes");
        assertEquals(Map.of("path=relay", 107.0, "path=direct", 10.0, "path=origin", 0.0, "path=ftp", 1005.0), byPath);
    }

    @Test
    void ftpTransfersOpenCountsUpAndDown() {
        ServerMetrics m = new ServerMetrics(() -> 0);
        Runnable send = m.ftpTransfer(false);
        Runnable upload = m.ftpTransfer(true);
        Runnable another = m.ftpTransfer(false);
        assertEquals(Map.of("direction=send", 2.0, "direction=receive", 1.0), gauge(m, "fsp_server_ftp_transfers_open"));
        send.run();
        upload.run();
        another.run();
        assertEquals(Map.of("direction=send", 0.0, "direction=receive", 0.0), gauge(m, "fsp_server_ftp_transfers_open"));
    }

    private static MetricSnapshot snapshot(ServerMetrics m, String name) {
        return m.registry().scrape().stream().filter(s -> s.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow();
    }

    private static Map<String, Double> counter(ServerMetrics m, String name) {
        Map<String, Double> values = new TreeMap<>();
        for (CounterSnapshot.CounterDataPointSnapshot p : ((CounterSnapshot) snapshot(m, name)).getDataPoints()) {
            values.put(labels(p.getLabels()), p.getValue());
        }
        return values;
    }

    private static Map<String, Double> gauge(ServerMetrics m, String name) {
        Map<String, Double> values = new TreeMap<>();
        for (GaugeSnapshot.GaugeDataPointSnapshot p : ((GaugeSnapshot) snapshot(m, name)).getDataPoints()) {
            values.put(labels(p.getLabels()), p.getValue());
        }
        return values;
    }

    /** {@code a=1,b=2}, names in order. */
    private static String labels(Labels labels) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < labels.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(labels.getName(i)).append('=').append(labels.getValue(i));
        }
        return sb.toString();
    }
}
