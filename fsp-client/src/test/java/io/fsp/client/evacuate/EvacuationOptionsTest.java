package io.fsp.client.evacuate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.client.control.FspUrl;
import io.fsp.extension.TransferOptions;
import io.fsp.tls.Fingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvacuationOptionsTest {
    @Test
    void theDryRunAsksForTheSameRetentionAndAProbe() {
        Evacuation.Options o = new Evacuation.Options(FspUrl.parse("fsp://ops@127.0.0.1:2121/data"), new char[0],
                Fingerprint.parse("AB:" + "01:".repeat(30) + "CD"), Path.of("m"), null, 2, "7d", Duration.ofDays(7), List.of(),
                null, TransferOptions.Request.of(List.of("block-size=4m", "compression=zstd")), Duration.ofSeconds(10));
        assertEquals("FSPO retain=7d replicas=2 include-direct=off use-relays=on block-size=4m compression=zstd", o.fspo().command());
        assertEquals("FSPO retain=7d replicas=2 include-direct=off use-relays=on block-size=4m compression=zstd probe=on",
                o.probe().command());
    }
}
