package io.fsp.client.evacuate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.FspUrl;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.FspOptions;
import io.fsp.tls.Fingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a dry run says the evacuation as asked can be met, and the reasons it gives when not. */
class DryRunReportTest {
    private static final String FP = "AB:" + "01:".repeat(30) + "CD";
    private static final String DIGEST = "sha256:" + "ab".repeat(32);
    private static final long MIB = 1 << 20;

    private static Evacuation.Options options(int replicas, Duration deadline) {
        return new Evacuation.Options(FspUrl.parse("fsp://ops@127.0.0.1:2121/data"), new char[0], Fingerprint.parse(FP),
                null, null, replicas, "7d", Duration.ofDays(7), List.of(), deadline, FspOptions.NONE,
                Duration.ofSeconds(10));
    }

    private static final Announcement.Transfer TRANSFER = (Announcement.Transfer) ExtensionCodec.parse(
            "FSP 00112233445566ff kind=directory files=1 directories=0 bytes=" + 4 * MIB + " blocks=4");

    /** The relays' lines as the server sends them, then one BLK line per holder list. */
    private static RelayOutcomes relays(List<String> lines) {
        RelayOutcomes o = new RelayOutcomes();
        lines.forEach(l -> o.add(ExtensionCodec.parse(l)));
        return o;
    }

    private static DryRunReport report(int replicas, Duration deadline, long placed, double seconds, String... lines) {
        return DryRunReport.of(TRANSFER, 0.2, placed / MIB, placed, seconds, false, options(replicas, deadline), null,
                relays(List.of(lines)), 0);
    }

    /** Free text as a REFUSED line carries it. */
    private static String text(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String relay(int i) {
        return "RELAY " + i + " 127.0.0.1:700" + i + " " + FP;
    }

    @Test
    void everyConditionHoldingCanBeMet() {
        DryRunReport r = report(2, Duration.ofMinutes(10), 2 * MIB, 1.0, relay(0), relay(1),
                "SPACE 0 " + 4 * MIB + " " + 4 * MIB, "SPACE 1 " + 8 * MIB + " " + 4 * MIB);
        assertEquals(List.of(), r.reasons());
        assertTrue(r.canBeMet());
        assertTrue(r.toText().contains("deadline 600 s: can be met"), r.toText());
        assertTrue(r.toText().contains("relay 127.0.0.1:7000 took it, reserving 4.0 MiB of 4.0 MiB"), r.toText());
        assertTrue(r.toJson().contains("\"deadline_met\":true,\"can_be_met\":true,\"replicas\":2"), r.toJson());
        assertTrue(r.toJson().contains("{\"relay\":\"127.0.0.1:7001\",\"reserved\":" + 8 * MIB + ",\"declared\":" + 4 * MIB + "}"),
                r.toJson());
    }

    @Test
    void noBlockPlacedCannotBeMetWhateverTheDeadline() {
        DryRunReport r = DryRunReport.of(TRANSFER, 0, 0, 0, 0, true, options(1, Duration.ofDays(1)), null,
                relays(List.of()), 4);
        assertFalse(r.canBeMet());
        assertTrue(r.reasons().contains("no block was placed on a relay within the probe (4 found no relay)"), r.reasons().toString());
        assertTrue(r.reasons().get(0).startsWith("0 relays took the transfer, 1 copies (--replicas 1) need 1 relays"),
                r.reasons().toString());
        assertTrue(r.toText().contains("deadline 86400 s: CANNOT be met"), r.toText());
        assertTrue(r.toJson().contains("\"deadline_met\":false,\"can_be_met\":false"), r.toJson());
    }

    @Test
    void aServerRefusalIsTheReasonWithWhatWouldFit() {
        DryRunReport r = DryRunReport.of(null, 0, 0, 0, 0, false, options(2, null), "FSPO retain=7d: server answered"
                + " 550 ops may not retain: no retain-user line", relays(List.of()), 0);
        assertEquals(1, r.reasons().size(), r.reasons().toString());
        assertTrue(r.reasons().get(0).startsWith("the server refused the evacuation: FSPO retain=7d: server answered 550"),
                r.reasons().get(0));
        assertTrue(r.reasons().get(0).contains("retain-user line for this account, allowing at least --retain 7d"),
                r.reasons().get(0));
        assertTrue(r.toText().contains("evacuation: CANNOT be met"), r.toText());
        assertTrue(r.toJson().contains("\"server_refused\":\"FSPO retain=7d: server answered 550"), r.toJson());
    }

    @Test
    void relaysRefusingTheRetentionAreNamedWithTheShortestTheyKeep() {
        DryRunReport r = report(2, null, 0, 0,
                "REFUSED 127.0.0.1:7001 RETENTION_TOO_LONG " + text("expiresAt: 2026-12-13T00:00:00Z"
                        + " (expected: by 2026-12-07T00:00:00Z, this relay retains transfers for at most PT24H)"),
                "REFUSED 127.0.0.1:7002 RETENTION_TOO_LONG " + text("this relay keeps evacuations at most 36h"),
                "REFUSED 127.0.0.1:7003 UNREACHABLE " + text("Connection refused"));
        List<String> reasons = r.reasons();
        assertTrue(reasons.contains("relay 127.0.0.1:7001, 127.0.0.1:7002 refused: RETENTION_TOO_LONG: expiresAt:"
                + " 2026-12-13T00:00:00Z (expected: by 2026-12-07T00:00:00Z, this relay retains transfers for at most PT24H)"),
                reasons.toString());
        assertTrue(reasons.contains("relay 127.0.0.1:7003 refused: UNREACHABLE: Connection refused"), reasons.toString());
        assertTrue(reasons.contains("would fit: --retain 1d or shorter (the shortest max-retain they named), or relays"
                + " that keep evacuations --retain 7d"), reasons.toString());
        assertTrue(r.toJson().contains("\"refused\":[{\"relay\":\"127.0.0.1:7001\",\"reason\":\"RETENTION_TOO_LONG\""),
                r.toJson());
    }

    @Test
    void aRetentionTextThatSaysNoDurationIsQuoted() {
        DryRunReport r = report(1, null, 0, 0, "REFUSED 127.0.0.1:7001 RETENTION_TOO_LONG too%20long");
        assertTrue(r.reasons().contains("relay 127.0.0.1:7001 refused: RETENTION_TOO_LONG: too long"), r.reasons().toString());
        assertTrue(r.reasons().contains("would fit: a --retain no longer than those relays keep evacuations, or relays"
                + " that keep evacuations --retain 7d"), r.reasons().toString());
    }

    @Test
    void relaysShortOfPerTransferSpaceSayHowManyMoreWouldFit() {
        // two copies of 4 MiB need 8 MiB on two relays; the three reserve 1 + 2 + 4 MiB: 1 MiB short, one more relay
        DryRunReport r = report(2, null, 2 * MIB, 1.0, relay(0), relay(1), relay(2),
                "SPACE 0 " + MIB + " " + 4 * MIB, "SPACE 1 " + 2 * MIB + " " + 4 * MIB, "SPACE 2 " + 9 * MIB + " " + 4 * MIB,
                "REFUSED 127.0.0.1:7009 NO_SPACE " + text("no room to reserve"));
        List<String> reasons = r.reasons();
        assertFalse(r.canBeMet());
        assertEquals("3 relays took the transfer (127.0.0.1:7000 reserving 1.0 MiB, 127.0.0.1:7001 reserving 2.0 MiB,"
                + " 127.0.0.1:7002 reserving 9.0 MiB), 2 copies (--replicas 2) of 4.0 MiB need 8.0 MiB on 2 relays", reasons.get(0));
        assertEquals("would fit: 1 more relay with 4.0 MiB free each for this transfer (its --transfer-space, and as much"
                + " free space), or more --transfer-space on those taking it, or fewer --replicas", reasons.get(1));
        assertTrue(reasons.contains("relay 127.0.0.1:7009 refused: NO_SPACE: no room to reserve"), reasons.toString());
    }

    @Test
    void aReservationShortOfTheWholeIsCountedInWholeBlocks() {
        // 2 MiB reserved of 4 MiB hold one sealed 1 MiB block, not two: 1 MiB each is counted, so two more relays
        DryRunReport r = report(2, null, 2 * MIB, 1.0, relay(0), relay(1), "SPACE 0 " + 2 * MIB + " " + 4 * MIB,
                "SPACE 1 " + 2 * MIB + " " + 4 * MIB, "BLK 0 relay:0,1 0 0 " + MIB + " " + DIGEST);
        assertEquals("would fit: 2 more relays with 4.0 MiB free each for this transfer (its --transfer-space, and as"
                + " much free space), or more --transfer-space on those taking it, or fewer --replicas", r.reasons().get(1));
    }

    @Test
    void tooFewRelaysForTheCopiesIsAReasonEvenWithSpace() {
        DryRunReport r = report(2, null, 2 * MIB, 1.0, relay(0), "SPACE 0 " + 100 * MIB + " " + 4 * MIB,
                "REFUSED 127.0.0.1:7001 UNREACHABLE " + text("Connection refused"));
        assertTrue(r.reasons().get(0).startsWith("1 relay took the transfer (127.0.0.1:7000 reserving 100.0 MiB), 2 copies"),
                r.reasons().toString());
        assertTrue(r.reasons().get(1).startsWith("would fit: 1 more relay with 4.0 MiB free"), r.reasons().toString());
        assertTrue(r.reasons().contains("relay 127.0.0.1:7001 refused: UNREACHABLE: Connection refused"), r.reasons().toString());
    }

    @Test
    void aMissedDeadlineIsAReason() {
        DryRunReport r = report(1, Duration.ofSeconds(1), MIB, 1.0, relay(0), "SPACE 0 " + 4 * MIB + " " + 4 * MIB);
        assertEquals(List.of("the estimate, 4.2 s, misses the deadline of 1 s"), r.reasons());
        assertTrue(r.toText().contains("deadline 1 s: CANNOT be met"), r.toText());
    }

    @Test
    void aRefusedRelayWhenOthersSufficeIsANoteNotAReason() {
        List<String> lines = new ArrayList<>(List.of(relay(0), "SPACE 0 " + 4 * MIB + " " + 4 * MIB,
                "REFUSED 127.0.0.1:7001 UNREACHABLE x"));
        DryRunReport r = report(1, null, MIB, 1.0, lines.toArray(String[]::new));
        assertTrue(r.canBeMet(), r.reasons().toString());
        assertTrue(r.toText().contains("note: relay 127.0.0.1:7001 refused: UNREACHABLE: x"), r.toText());
    }

    @Test
    void retentionsAreWrittenInTheLargestWholeUnit() {
        assertEquals("1d", RelayOutcomes.retainText(Duration.ofDays(1)));
        assertEquals("36h", RelayOutcomes.retainText(Duration.ofHours(36)));
        assertEquals("90m", RelayOutcomes.retainText(Duration.ofMinutes(90)));
        assertEquals("61m", RelayOutcomes.retainText(Duration.ofSeconds(3661)));
        assertEquals("45s", RelayOutcomes.retainText(Duration.ofSeconds(45)));
    }
}
