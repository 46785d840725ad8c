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
import org.junit.jupiter.api.Test;

class StripeOptionsTest {
    @Test
    void parsesEveryKey() {
        StripeOptions o = StripeOptions.DEFAULTS.with("block-size", "256k").with("compression", "zstd")
                .with("cipher", "aes-128-gcm").with("checksum", "sha256").with("digest", "blake3")
                .with("strategy", "partitioned").with("include-direct", "on").with("streams", "8").with("use-relays", "off")
                .with("replicas", "2");
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
        assertTrue(o.describe().endsWith(" replicas=2"));
    }

    /** The FSP announcement carries the options as FSPO shows them; the codec accepts every one of them. */
    @Test
    void theOptionsFitTheTransferAnnouncement() {
        assertEquals("block-size=1048576 compression=off cipher=aes-256-gcm checksum=crc32c digest=sha256 strategy=fcfs"
                + " include-direct=off streams=4 use-relays=on replicas=1", StripeOptions.DEFAULTS.describe());
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
