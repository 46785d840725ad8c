package io.fsp.client.evacuate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.client.control.FspUrl;
import io.fsp.extension.FspOptions;
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
                null, FspOptions.parse("block-size=4194304 compression=3"), Duration.ofSeconds(10));
        assertEquals("FSPO retain=7d replicas=2 include-direct=off use-relays=on block-size=4194304 compression=3", o.fspo().command());
        assertEquals("FSPO retain=7d replicas=2 include-direct=off use-relays=on block-size=4194304 compression=3 probe=on",
                o.probe().command());
    }
}
