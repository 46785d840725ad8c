package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.token.TransferId;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StripeOptionsTest {
    @Test
    void parsesEveryKey() {
        StripeOptions o = StripeOptions.DEFAULTS.with("block-size", "256k").with("compression", "zstd")
                .with("cipher", "aes-128-gcm").with("checksum", "sha256").with("digest", "blake3")
                .with("strategy", "partitioned").with("include-direct", "on").with("streams", "8").with("use-relays", "off")
                .with("replicas", "2").with("retain", "7d");
        assertEquals(256 * 1024, o.blockSize());
        assertEquals(3, o.compressionLevel());
        assertEquals(128, o.cipherBits());
        assertEquals(ChecksumAlgorithm.SHA256, o.checksum());
        assertEquals(ChecksumAlgorithm.BLAKE3, o.digest());
        assertEquals(DistributionStrategy.PARTITIONED, o.strategy());
        assertTrue(o.includeDirect());
        assertEquals(8, o.streams());
        assertFalse(o.useRelays());
        assertEquals(2, o.replicas());
        assertTrue(o.describe().contains("cipher=aes-128-gcm"));
        assertEquals(Duration.ofDays(7), o.retain());
        assertTrue(o.evacuation());
        assertTrue(o.describe().endsWith(" replicas=2 retain=7d"), o.describe());
    }

    /** The FSP announcement carries the options as FSPO shows them; the codec accepts every one of them. */
    @Test
    void theOptionsFitTheTransferAnnouncement() {
        assertEquals("block-size=1048576 compression=off cipher=aes-256-gcm checksum=crc32c digest=sha256 strategy=fcfs"
                + " include-direct=off streams=4 use-relays=on replicas=1 retain=off", StripeOptions.DEFAULTS.describe());
        assertFalse(StripeOptions.DEFAULTS.evacuation(), "retain is off by default");
        StripeOptions o = StripeOptions.DEFAULTS.with("compression", "19").with("cipher", "none").with("strategy", "cyclic");
        Announcement.Transfer t = new Announcement.Transfer(new TransferId(1), false, 1, 0, 10, 1, o.asMap());
        String line = ExtensionCodec.format(t);
        assertTrue(line.endsWith(" " + o.describe()), line);
        assertEquals(t, ExtensionCodec.parse(line));
    }

    @Test
    void refusesBadValuesNamingTheLimit() {
        assertEquals("block-size: 1024 (expected: 4096..16777216)",
                assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("block-size", "1k")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("block-size", "99999999999999"));
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("block-size", "-1"));
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("streams", "0"));
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("cipher", "rot13"));
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("compression", "20"));
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("strategy", "random"));
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("nonsense", "1"));
        assertEquals("replicas: 4 (expected: 1..3)",
                assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("replicas", "4")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("replicas", "0"));
    }

    /** retain: off, or digits with s, m, h or d, from 1 minute to the server's max-retain. */
    @Test
    void retainIsADurationFromAMinuteToTheServersMaximum() {
        assertEquals(Duration.ofMinutes(90), StripeOptions.DEFAULTS.with("retain", "90m").retain());
        assertEquals(Duration.ofSeconds(60), StripeOptions.DEFAULTS.with("retain", "60s").retain());
        assertEquals(Duration.ofHours(36), StripeOptions.DEFAULTS.with("retain", "36H").retain());
        assertEquals("retain=1m", "retain=" + StripeOptions.DEFAULTS.with("retain", "60s").asMap().get("retain"));
        assertEquals("retain=36h", "retain=" + StripeOptions.DEFAULTS.with("retain", "36h").asMap().get("retain"));
        assertEquals("retain=90m", "retain=" + StripeOptions.DEFAULTS.with("retain", "5400s").asMap().get("retain"));
        assertFalse(StripeOptions.DEFAULTS.with("retain", "7d").with("retain", "off").evacuation());
        assertEquals("retain: 59s (expected: off or at least 1m)",
                assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("retain", "59s")).getMessage());
        for (String bad : new String[] {"0s", "0d", "7", "d", "7w", "-1d", "1.5h", "7 d", "9999999999d", "", "on"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StripeOptions.DEFAULTS.with("retain", bad), bad);
            assertTrue(e.getMessage().startsWith("retain: ") && e.getMessage().contains("expected: off"), e.getMessage());
        }
        StripeOptions month = StripeOptions.DEFAULTS.with("retain", "30d");
        month.requireRetainAtMost(Duration.ofDays(30));
        StripeOptions.DEFAULTS.requireRetainAtMost(Duration.ofMinutes(1));
        assertEquals("retain: 31d (expected: off or 1m..30d, the server's max-retain)",
                assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("retain", "31d")
                        .requireRetainAtMost(Duration.ofDays(30))).getMessage());
        assertEquals("retain: 61m (expected: off or 1m..1h, the server's max-retain)",
                assertThrows(IllegalArgumentException.class, () -> StripeOptions.DEFAULTS.with("retain", "61m")
                        .requireRetainAtMost(Duration.ofHours(1))).getMessage());
    }

    @Test
    void relayEndpointNeedsAFingerprint() {
        String fp = "AB:".repeat(31) + "AB";
        RelayEndpoint r = RelayEndpoint.parse("127.0.0.1:7001=" + fp);
        assertEquals("127.0.0.1:7001", r.hostPort());
        assertEquals(7001, RelayEndpoint.parse("[::1]:7001=" + fp).port());
        assertEquals("::1", RelayEndpoint.parse("[::1]:7001=" + fp).host());
        assertThrows(IllegalArgumentException.class, () -> RelayEndpoint.parse("127.0.0.1:7001"));
        assertThrows(IllegalArgumentException.class, () -> RelayEndpoint.parse("127.0.0.1:0=" + fp));
        assertThrows(IllegalArgumentException.class, () -> RelayEndpoint.parse("127.0.0.1:x=" + fp));
    }
}
