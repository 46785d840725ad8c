package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.token.TransferId;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransferOptionsTest {
    @Test
    void parsesEveryKey() {
        TransferOptions o = TransferOptions.DEFAULTS.with("block-size", "256k").with("compression", "zstd")
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

    /** By default the server sizes each transfer's blocks; a size given is kept, and auto given back. */
    @Test
    void theBlockSizeIsAutomaticUntilOneIsGiven() {
        assertTrue(TransferOptions.DEFAULTS.automaticBlockSize());
        TransferOptions given = TransferOptions.DEFAULTS.with("block-size", "4m");
        assertFalse(given.automaticBlockSize());
        assertEquals(4 << 20, given.blockSize());
        assertTrue(given.with("block-size", "auto").automaticBlockSize());
        assertEquals(2 << 20, TransferOptions.DEFAULTS.withBlockSize(2 << 20).blockSize());
        assertEquals(TransferOptions.DEFAULTS.with("streams", "8").with("block-size", "2m"),
                TransferOptions.DEFAULTS.with("streams", "8").withBlockSize(2 << 20), "nothing else changes");
    }

    /** The FSP announcement carries the options as FSPO shows them; the codec accepts every one of them. */
    @Test
    void theOptionsFitTheTransferAnnouncement() {
        assertEquals("block-size=auto compression=off cipher=aes-256-gcm checksum=crc32c digest=sha256 strategy=fcfs"
                + " include-direct=off streams=4 use-relays=on replicas=1 retain=off", TransferOptions.DEFAULTS.describe());
        assertFalse(TransferOptions.DEFAULTS.evacuation(), "retain is off by default");
        TransferOptions o = TransferOptions.DEFAULTS.with("compression", "19").with("cipher", "none").with("strategy", "cyclic");
        Announcement.Transfer t = new Announcement.Transfer(new TransferId(1), false, 1, 0, 10, 1, o.announced());
        String line = ExtensionCodec.format(t);
        assertTrue(line.endsWith(" " + o.describe()), line);
        assertEquals(t, ExtensionCodec.parse(line));
    }

    @Test
    void refusesBadValuesNamingTheLimit() {
        assertEquals("block-size: 1024 (expected: auto or 4096..16777216)",
                assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("block-size", "1k")).getMessage());
        assertEquals("block-size: 0 (expected: auto or 4096..16777216)",
                assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("block-size", "0")).getMessage(),
                "0 is not a way to say auto");
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("block-size", "99999999999999"));
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("block-size", "-1"));
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("streams", "0"));
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("cipher", "rot13"));
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("compression", "20"));
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("strategy", "random"));
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("nonsense", "1"));
        assertEquals("replicas: 4 (expected: 1..3)",
                assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("replicas", "4")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("replicas", "0"));
    }

    /** retain: off, or digits with s, m, h or d, from 1 minute to the server's max-retain. */
    @Test
    void retainIsADurationFromAMinuteToTheServersMaximum() {
        assertEquals(Duration.ofMinutes(90), TransferOptions.DEFAULTS.with("retain", "90m").retain());
        assertEquals(Duration.ofSeconds(60), TransferOptions.DEFAULTS.with("retain", "60s").retain());
        assertEquals(Duration.ofHours(36), TransferOptions.DEFAULTS.with("retain", "36H").retain());
        assertEquals("retain=1m", FspOption.RETAIN.pair(TransferOptions.DEFAULTS.with("retain", "60s").retain()));
        assertEquals("retain=36h", FspOption.RETAIN.pair(TransferOptions.DEFAULTS.with("retain", "36h").retain()));
        assertEquals("retain=90m", FspOption.RETAIN.pair(TransferOptions.DEFAULTS.with("retain", "5400s").retain()));
        assertFalse(TransferOptions.DEFAULTS.with("retain", "7d").with("retain", "off").evacuation());
        assertEquals("retain: 59s (expected: off or at least 1m)",
                assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("retain", "59s")).getMessage());
        for (String bad : new String[] {"0s", "0d", "7", "d", "7w", "-1d", "1.5h", "7 d", "9999999999d", "", "on"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TransferOptions.DEFAULTS.with("retain", bad), bad);
            assertTrue(e.getMessage().startsWith("retain: ") && e.getMessage().contains("expected: off"), e.getMessage());
        }
        TransferOptions month = TransferOptions.DEFAULTS.with("retain", "30d");
        month.requireRetainAtMost(Duration.ofDays(30));
        TransferOptions.DEFAULTS.requireRetainAtMost(Duration.ofMinutes(1));
        assertEquals("retain: 31d (expected: off or 1m..30d, the server's max-retain)",
                assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("retain", "31d")
                        .requireRetainAtMost(Duration.ofDays(30))).getMessage());
        assertEquals("retain: 61m (expected: off or 1m..1h, the server's max-retain)",
                assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("retain", "61m")
                        .requireRetainAtMost(Duration.ofHours(1))).getMessage());
    }

    /** probe: on or off, shown only when on, and only with retain (checked once an FSPO's pairs are all set). */
    @Test
    void probeIsADryRunOfAnEvacuationOnly() {
        TransferOptions probe = TransferOptions.DEFAULTS.with("probe", "on").with("retain", "1d");
        assertTrue(probe.probe());
        probe.requireProbeWithRetain();
        assertTrue(probe.describe().endsWith(" retain=1d probe=on"), probe.describe());
        assertFalse(TransferOptions.DEFAULTS.describe().contains("probe"));
        assertFalse(probe.with("probe", "off").probe());
        assertEquals("probe: on (expected: only with retain=DURATION: a probe is a dry run of an evacuation)",
                assertThrows(IllegalArgumentException.class, () -> TransferOptions.DEFAULTS.with("probe", "on")
                        .requireProbeWithRetain()).getMessage());
        assertEquals("probe: maybe (expected: on or off)", assertThrows(IllegalArgumentException.class,
                () -> TransferOptions.DEFAULTS.with("probe", "maybe")).getMessage());
    }

    /** What a client builds is the line the server reads back, pair for pair, each value as its key writes it. */
    @Test
    void aRequestIsTheFspoLineTheServerReadsBack() {
        FspOptions r = FspOptions.NONE.with(FspOption.RETAIN, Duration.ofDays(7)).with(FspOption.REPLICAS, 2)
                .with(FspOption.INCLUDE_DIRECT, false).with(FspOption.USE_RELAYS, true)
                .with(FspOptions.parse("block-size=4m compression=zstd"));
        assertEquals("FSPO retain=7d replicas=2 include-direct=off use-relays=on block-size=4194304 compression=3",
                r.command());
        assertEquals(r, FspOptions.parse(r.command().substring("FSPO ".length())));
        assertEquals(FspOptions.NONE, FspOptions.parse("  "));
        assertEquals("FSPO", FspOptions.NONE.command());
        assertEquals("block-size=4194304 compression=3 cipher=aes-256-gcm checksum=crc32c digest=sha256 strategy=fcfs"
                + " include-direct=off streams=4 use-relays=on replicas=2 retain=7d", TransferOptions.DEFAULTS.with(r).describe());
        assertEquals(30.0, FspOptions.parse("Near-Sender=30").get(FspOption.NEAR_SENDER).orElseThrow());
        assertEquals(SelectionRequest.NONE, SelectionRequest.NONE.with(r), "no selection option in it");
    }

    @Test
    void aRequestRefusesWhatTheServerWouldNotSplitBack() {
        assertEquals("options: 17 (expected: <= 16)", assertThrows(IllegalArgumentException.class,
                () -> FspOptions.parse("a=1 ".repeat(17))).getMessage());
        assertEquals("option: 'streams' (expected: key=value)", assertThrows(IllegalArgumentException.class,
                () -> FspOptions.parse("block-size=4k streams")).getMessage());
        assertEquals("option: '=4' (expected: key=value)", assertThrows(IllegalArgumentException.class,
                () -> FspOptions.parse("=4")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FspOptions.parse("nonsense=1")).getMessage()
                .startsWith("option: nonsense (expected: one of block-size, compression, "));
        assertThrows(IllegalArgumentException.class, () -> FspOptions.NONE.withText(FspOption.CIPHER, "none\r\nQUIT"));
        assertThrows(IllegalArgumentException.class, () -> FspOptions.NONE.with(FspOption.REPLICAS, 4));
        FspOptions full = FspOptions.NONE;
        for (int i = 0; i < FspOptions.MAX_PAIRS; i++) {
            full = full.with(FspOption.STREAMS, 1);
        }
        full.command();
        FspOptions seventeen = full.with(FspOption.STREAMS, 1);
        assertThrows(IllegalArgumentException.class, seventeen::command);
    }
}
