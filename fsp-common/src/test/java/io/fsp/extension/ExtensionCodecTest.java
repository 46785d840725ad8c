package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.RelativePaths;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.extension.Announcement.Placement;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExtensionCodecTest {
    private static final String HEX = "abababababababababababababababababababababababababababababababab";
    private static final Digest DIGEST = Digest.parse("sha256:" + HEX);
    private static final String FP = "AB:CD:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:EF";

    private static void roundTrip(Announcement a, String line) {
        assertEquals(line, ExtensionCodec.format(a));
        assertEquals(a, ExtensionCodec.parse(line));
    }

    @Test
    void transferLineRoundTrips() {
        FspOptions options = FspOptions.parse("block-size=1048576 checksum=sha1 digest=blake3");
        Announcement.Transfer t = new Announcement.Transfer(new TransferId(0x0123456789abcdefL), true, 3, 2, 5000, 7, options);
        roundTrip(t, "FSP 0123456789abcdef kind=directory files=3 directories=2 bytes=5000 blocks=7 block-size=1048576"
                + " checksum=sha1 digest=blake3");
        assertEquals(ChecksumAlgorithm.SHA1, t.checksum());
        assertEquals(ChecksumAlgorithm.BLAKE3, t.digest());
        Announcement.Transfer plain = (Announcement.Transfer) ExtensionCodec.parse(
                "FSP 0000000000000001 kind=file files=1 directories=0 bytes=0 blocks=0");
        assertEquals(ChecksumAlgorithm.CRC32C, plain.checksum());
        assertEquals(ChecksumAlgorithm.SHA256, plain.digest());
        assertEquals(false, plain.directory());
    }

    @Test
    void keyTokenRelayDirectoryAndFileLinesRoundTrip() {
        byte[] key = new byte[32];
        key[3] = 7;
        roundTrip(new Announcement.Key(key), "KEY " + java.util.Base64.getEncoder().encodeToString(key));
        roundTrip(new Announcement.Key(new byte[16]), "KEY AAAAAAAAAAAAAAAAAAAAAA==");
        roundTrip(new Announcement.Key(null), "KEY none");
        CapabilityToken token = CapabilityToken.issue(TokenKey.random(), new TransferId(5),
                Instant.ofEpochMilli(1_700_000_000_000L), TokenScope.ALL);
        roundTrip(new Announcement.Token(token), "TOKEN " + token.toText());
        roundTrip(new Announcement.Relay(2, "relay.example", 7000, Fingerprint.parse(FP)), "RELAY 2 relay.example:7000 " + FP);
        roundTrip(new Announcement.Relay(0, "::1", 7000, Fingerprint.parse(FP)), "RELAY 0 [::1]:7000 " + FP);
        roundTrip(new Announcement.Directory("sub dir/ä"), "DIR sub%20dir%2F%C3%A4");
        roundTrip(new Announcement.File(4, 1 << 20, 1_700_000_000_000L, "a+b 100%.bin"), "FILE 4 1048576 1700000000000 a%2Bb%20100%25.bin");
        roundTrip(new Announcement.File(0, 0, -1000, "old"), "FILE 0 0 -1000 old");
    }

    @Test
    void blockLinesRoundTripForEveryPlacement() {
        roundTrip(new Announcement.Block(7, Placement.relays(2), 3, 1048576, 4096, DIGEST), "BLK 7 relay:2 3 1048576 4096 sha256:" + HEX);
        roundTrip(new Announcement.Block(9, Placement.relays(2, 0, 5), 0, 0, 4096, DIGEST), "BLK 9 relay:2,0,5 0 0 4096 sha256:" + HEX);
        roundTrip(new Announcement.Block(1, Placement.DIRECT, 0, 0, 1, DIGEST), "BLK 1 direct 0 0 1 sha256:" + HEX);
        roundTrip(new Announcement.Block(1, Placement.ORIGIN, 0, 0, 1, DIGEST), "BLK 1 origin 0 0 1 sha256:" + HEX);
        roundTrip(new Announcement.Block(1, Placement.HELD, 0, 0, 1, null), "BLK 1 have 0 0 1 -");
        Announcement.Block b = (Announcement.Block) ExtensionCodec.parse("BLK 9 relay:2,0 0 10 4096 sha256:" + HEX);
        assertEquals(2, ((Placement.Relays) b.placement()).first());
        assertEquals(new ByteRange(10, 4106), b.range());
    }

    @Test
    void relayOutcomeLinesRoundTrip() {
        roundTrip(new Announcement.Space(2, 1 << 20, 5_600_000), "SPACE 2 1048576 5600000");
        roundTrip(new Announcement.Refused("relay.example", 7000, "RETENTION_TOO_LONG", "at most 1d (max-retain)"),
                "REFUSED relay.example:7000 RETENTION_TOO_LONG at%20most%201d%20%28max-retain%29");
        roundTrip(new Announcement.Refused("::1", 7001, "UNREACHABLE", "Connection refused: /[::1]:7001"),
                "REFUSED [::1]:7001 UNREACHABLE Connection%20refused%3A%20%2F%5B%3A%3A1%5D%3A7001");
        roundTrip(new Announcement.Stopped(0, "NO_SPACE", "full: 2 MiB"), "STOPPED 0 NO_SPACE full%3A%202%20MiB");
        roundTrip(new Announcement.Stopped(1, "FAILED", "a*b_c.d-e"), "STOPPED 1 FAILED a*b_c.d-e");
        bad("SPACE 1 2", "SPACE");
        bad("REFUSED relay:7000 no_space x", "reason");
        bad("REFUSED relay:7000 NO_SPACE a%20b x", "REFUSED");
        bad("STOPPED 0 NO_SPACE a+b", "name");
        bad("STOPPED 0 NO_SPACE " + "x".repeat(ExtensionLimits.MAX_REASON_TEXT + 1), "text");
        bad("STOPPED 0 " + "A".repeat(ExtensionLimits.MAX_REASON_LENGTH + 1) + " x", "reason");
        bad("STOPPED 0 NO_SPACE a%2fb", "'STOPPED");
    }

    @Test
    void limitsHoldAtTheirBoundaries() {
        long maxSeq = ExtensionLimits.MAX_SEQUENCE;
        int maxLen = ExtensionLimits.MAX_BLOCK_LENGTH;
        int maxRelay = ExtensionLimits.MAX_RELAY_INDEX;
        roundTrip(new Announcement.Block(maxSeq, Placement.relays(maxRelay, 0, 1), Integer.MAX_VALUE, 0, maxLen, DIGEST),
                "BLK " + maxSeq + " relay:" + maxRelay + ",0,1 " + Integer.MAX_VALUE + " 0 " + maxLen + " sha256:" + HEX);
        bad("BLK " + (maxSeq + 1) + " direct 0 0 1 sha256:" + HEX, "seq");
        bad("BLK 0 direct 0 0 " + (maxLen + 1) + " sha256:" + HEX, "length");
        bad("BLK 0 relay:" + (maxRelay + 1) + " 0 0 1 sha256:" + HEX, "relay index");
        bad("BLK 0 relay:1,2,3,4 0 0 1 sha256:" + HEX, "relays");
        bad("BLK 0 direct " + (Integer.MAX_VALUE + 1L) + " 0 1 sha256:" + HEX, "file index");
        bad("BLK 0 direct 0 " + Long.MAX_VALUE + " 1 sha256:" + HEX, "offset");
        String longest = "x".repeat(ExtensionLimits.MAX_NAME_BYTES);
        roundTrip(new Announcement.Directory(longest), "DIR " + longest);
        bad("DIR " + longest + "x", "name");
        String encodedLongest = "%C3%A4".repeat(ExtensionLimits.MAX_NAME_BYTES / 2);
        assertTrue(("FILE 2147483647 9223372036854775807 -9223372036854775807 " + encodedLongest).length()
                <= ExtensionLimits.MAX_LINE_LENGTH, "the longest FILE line fits the line limit");
        ExtensionCodec.parse("FILE 2147483647 9223372036854775807 -9223372036854775807 " + encodedLongest);
        bad("DIR " + "x".repeat(ExtensionLimits.MAX_LINE_LENGTH), "announcement");
        FspOptions many = FspOptions.NONE;
        for (int i = 0; i < ExtensionLimits.MAX_OPTIONS; i++) {
            many = many.withText(FspOption.unknown("k" + i), "v");
        }
        new Announcement.Transfer(new TransferId(1), false, 0, 0, 0, maxSeq + 1, many);
        FspOptions tooMany = many.withText(FspOption.unknown("one-more"), "v");
        assertThrows(IllegalArgumentException.class, () -> new Announcement.Transfer(new TransferId(1), false, 0, 0, 0, 0, tooMany));
        bad("FSP 0000000000000001 kind=file files=0 directories=0 bytes=0 blocks=" + (maxSeq + 2), "blocks");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", "BLK", "NOPE 1", "blk 1 direct 0 0 1 -",
        "BLK 7 relay:2 3 0 4096", "BLK 7 elsewhere 3 0 4096 sha256:" + HEX, "BLK -1 direct 3 0 4096 sha256:" + HEX,
        "BLK 1 direct 3 0 0 sha256:" + HEX, "BLK 1 direct 3 0 10 sha256:zz", "BLK x direct 3 0 10 sha256:" + HEX,
        "BLK 9 relay:2,2 0 0 4096 sha256:" + HEX, "BLK 9 relay:1, 0 0 4096 sha256:" + HEX, "BLK 9 relay: 0 0 4096 sha256:" + HEX,
        "BLK 1 direct 0 0 1 -", "BLK 1 have 0 0 1 sha256:" + HEX, "BLK 01 direct 0 0 1 sha256:" + HEX,
        "BLK 1  direct 0 0 1 sha256:" + HEX, "BLK 1 direct 0 0 1 sha256:" + HEX + " ", "BLK 1 direct 0 0 1 SHA256:" + HEX,
        "BLK 1 direct 0 0 1 sha256:abab", "BLK 1 direct 0 0 1 nope:" + HEX,
        "FSP 0000000000000001 kind=file files=1", "FSP 0000000000000001 kind=dir files=1 directories=0 bytes=0 blocks=0",
        "FSP 0000000000000001 files=1 kind=file directories=0 bytes=0 blocks=0",
        "FSP 00000000000000zz kind=file files=1 directories=0 bytes=0 blocks=0",
        "FSP 0000000000000001 kind=file files=1 directories=0 bytes=0 blocks=0 checksum=nope",
        "FSP 0000000000000001 kind=file files=1 directories=0 bytes=0 blocks=0 a=1 a=2",
        "FSP 0000000000000001 kind=file files=1 directories=0 bytes=0 blocks=0 =1",
        "FSP 0000000000000001 kind=file files=1 directories=0 bytes=0 blocks=0 Key=1",
        "FSP 0000000000000001 kind=file files=-1 directories=0 bytes=0 blocks=0",
        "KEY", "KEY !!!", "KEY AAAA", "KEY none extra", "TOKEN", "TOKEN abc", "TOKEN AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "RELAY 1 host " + FP, "RELAY 1 host:0 " + FP, "RELAY 1 host:65536 " + FP, "RELAY 1 :7000 " + FP, "RELAY 1 h:7000 AB",
        "RELAY 1 h@x:7000 " + FP, "RELAY 1 h:7000 ab:cd:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:01:ef",
        "DIR", "DIR ", "DIR a%2", "DIR a%zz", "DIR a+b", "DIR %C3", "DIR %FF", "DIR %41", "DIR ä",
        "FILE 0 1 1", "FILE 0 -1 1 a", "FILE 0 1 1 a b", "FILE 0 1 - a", "FILE 0 1 -0 a",
    })
    void refusesMalformedLines(String line) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parse(line));
        assertTrue(e.getMessage().contains("expected"), e.getMessage());
    }

    private static void bad(String line, String field) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parse(line));
        assertTrue(e.getMessage().startsWith(field), "'" + e.getMessage() + "' names " + field);
    }

    @Test
    void heldRangesRoundTripAndStayInsideTheLimits() {
        HeldRanges h = new HeldRanges(HEX, 3, List.of(new ByteRange(0, 10), new ByteRange(20, 30)));
        assertEquals(HEX + " 3 0-10,20-30", ExtensionCodec.format(h));
        assertEquals(h, ExtensionCodec.parseHeldRanges(HEX + " 3 0-10,20-30"));
        List<ByteRange> ranges = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ranges.add(new ByteRange(Long.MAX_VALUE - 1000 + 2 * i, Long.MAX_VALUE - 999 + 2 * i));
        }
        List<HeldRanges> lines = HeldRanges.lines(HEX, Integer.MAX_VALUE, ranges);
        assertEquals(3, lines.size());
        assertEquals(ExtensionLimits.MAX_RANGES_PER_LINE, lines.get(0).ranges().size());
        for (HeldRanges line : lines) {
            String text = ExtensionCodec.format(line);
            assertTrue(("FHAV " + text).length() < 8192, "a full FHAV line fits the server's default line limit");
            assertEquals(line, ExtensionCodec.parseHeldRanges(text));
        }
        String full = HEX + " 0 " + String.join(",", java.util.Collections.nCopies(ExtensionLimits.MAX_RANGES_PER_LINE, "0-1"));
        assertEquals(ExtensionLimits.MAX_RANGES_PER_LINE, ExtensionCodec.parseHeldRanges(full).ranges().size());
        assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parseHeldRanges(full + ",0-1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "x", HEX, HEX + " 0", "nothex 0 0-10", "ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB 0 0-10", HEX + " -1 0-10",
        HEX + " 0 10-10", HEX + " 0 20-10", HEX + " 0 0-", HEX + " 0 x-y", HEX + " 0 0-99999999999999999999",
        HEX + " 0 0-1,", HEX + " 0 0-1 ", HEX + "  0 0-1", HEX + " 0 00-1", HEX + " 0 -1-2", HEX + " 0 5"})
    void refusesMalformedHeldRanges(String argument) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parseHeldRanges(argument));
        assertTrue(e.getMessage().contains("expected"), e.getMessage());
    }

    /**
     * A name's encoding is URLEncoder's (a space as %20), and decoding gives the name back, whether the name takes
     * the short way (letters, digits, {@code . - * _ /}) or the general one; %2f in lower case stays refused.
     */
    @Test
    void namesEncodeAsUrlEncoderDoesAndDecodeBack() {
        java.util.Random random = new java.util.Random(28);
        String alphabet = "aZ09.-*_/////// +~%\u00e4\u20ac";
        int decoded = 0;
        for (int i = 0; i < 5000; i++) {
            StringBuilder b = new StringBuilder();
            for (int n = 1 + random.nextInt(12); n > 0; n--) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String name = b.toString();
            String encoded = ExtensionNames.encodeName(name);
            assertEquals(java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"),
                    encoded, name);
            if (RelativePaths.problem(name) == null) {
                assertEquals(name, ((Announcement.Directory) ExtensionCodec.parse("DIR " + encoded)).name(), encoded);
                decoded++;
            }
        }
        assertTrue(decoded > 1000, "names decoded: " + decoded);
        assertEquals("a/b", ((Announcement.Directory) ExtensionCodec.parse("DIR a%2Fb")).name());
        assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parse("DIR a%2fb"));
        assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parse("FILE 01 1 2 a"));
        assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parse("FILE 0 1 -0 a"));
    }

    /** FPRI names a file or directory as FILE lines name it: the same encoding, checked the same way. */
    @Test
    void priorityNamesAreEncodedAsFileNames() {
        assertEquals("docs%2Fa%20b.txt", ExtensionCodec.formatPriority("docs/a b.txt"));
        assertEquals("docs/a b.txt", ExtensionCodec.parsePriority("docs%2Fa%20b.txt"));
        assertEquals("caf\u00e9", ExtensionCodec.parsePriority("caf%C3%A9"));
        String longest = "x".repeat(ExtensionLimits.MAX_NAME_BYTES);
        assertEquals(longest, ExtensionCodec.parsePriority(longest));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parsePriority(longest + "x"))
                .getMessage().contains("expected: <= 4096"));
        assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.formatPriority("/etc"));
        assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.formatPriority("a/../b"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "%2Fetc", "..", ".", "a%2F..%2Fb", "a%2F.", "a b", "a+b", "%zz", "%C3", "docs%2fa",
        "a%2Db", "%41"})
    void refusesBadPriorityNames(String argument) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parsePriority(argument));
        assertTrue(e.getMessage().contains("expected"), e.getMessage());
    }

    /** FPRI names follow the one rule for relative names (RelativePaths), as block names do. */
    @ParameterizedTest
    @ValueSource(strings = {"a%2F", "a%2F%2Fb", "a%5Cb", "C%3Awin.ini", "a%0Ab", "a%7Fb", "..%2Fetc"})
    void refusesUnsafePriorityNames(String argument) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parsePriority(argument));
        assertTrue(e.getMessage().startsWith("name \""), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.formatPriority("docs/"));
    }

    /**
     * DIR and FILE names follow the same rule, checked as the line is read (and as the record is made), so no
     * consumer of announcements (get, collect, FCOL, evacuation manifests) ever holds a name that leaves its target.
     */
    @ParameterizedTest
    @ValueSource(strings = {"..", ".", "%2Fetc%2Fpasswd", "..%2F..%2Fescaped.bin", "a%2F..%2F..%2Fb", "a%2F.", "a%2F",
        "a%2F%2Fb", "a%5Cb", "..%5Cx", "C%3Awin.ini", "a%00b", "a%0Ab", "a%7Fb"})
    void refusesUnsafeDirectoryAndFileNames(String encoded) {
        IllegalArgumentException dir = assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parse("DIR " + encoded));
        assertTrue(dir.getMessage().startsWith("DIR name \"") && dir.getMessage().contains("(expected: "), dir.getMessage());
        IllegalArgumentException file = assertThrows(IllegalArgumentException.class,
                () -> ExtensionCodec.parse("FILE 0 10 1700000000000 " + encoded));
        assertTrue(file.getMessage().startsWith("FILE name \"") && file.getMessage().contains("(expected: "),
                file.getMessage());
        String name = java.net.URLDecoder.decode(encoded, java.nio.charset.StandardCharsets.UTF_8);
        assertThrows(IllegalArgumentException.class, () -> new Announcement.Directory(name));
        assertThrows(IllegalArgumentException.class, () -> new Announcement.File(0, 10, 0, name));
    }

    @Test
    void theMessageShowsAControlCharacterEscaped() {
        assertEquals("FILE name \"a\\u001bb\" contains control character 27 (expected: none)",
                assertThrows(IllegalArgumentException.class, () -> ExtensionCodec.parse("FILE 0 1 1 a%1Bb")).getMessage());
    }

    @Test
    void manifestDigestIsOverTheFileLines() throws Exception {
        Manifest m = new Manifest(List.of(new Announcement.File(0, 10, 1000, "a b"), new Announcement.File(1, 20, 3000, "c")));
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        md.update("FILE 0 10 1000 a%20b\nFILE 1 20 3000 c\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(java.util.HexFormat.of().formatHex(md.digest()), m.digest());
        assertEquals(30, m.totalBytes());
        assertEquals(3000, m.newestModifiedMillis());
        assertThrows(IllegalArgumentException.class, () -> new Manifest(List.of(new Announcement.File(1, 10, 0, "a"))));
    }

    /** The fuzz target's stored inputs are valid lines, so that fuzzing starts from the accepting paths. */
    @ParameterizedTest
    @ValueSource(strings = {"transfer", "key", "token", "relay", "dir", "file", "block-relays", "block-held", "fhav", "fpri"})
    void fuzzSeedsAreValidLines(String seed) throws Exception {
        byte[] input;
        try (java.io.InputStream in = getClass().getResourceAsStream(
                "ExtensionCodecFuzzTestInputs/parserRefusesOrRoundTrips/" + seed)) {
            input = in.readAllBytes();
        }
        String text = new String(input, 1, input.length - 1, java.nio.charset.StandardCharsets.UTF_8);
        if (input[0] == 2) {
            assertEquals(text, ExtensionCodec.formatPriority(ExtensionCodec.parsePriority(text)));
        } else if (input[0] == 0) {
            assertEquals(text, ExtensionCodec.format(ExtensionCodec.parse(text)));
        } else {
            assertEquals(text, ExtensionCodec.format(ExtensionCodec.parseHeldRanges(text)));
        }
    }

    @Test
    void rangesCoalesce() {
        assertEquals(List.of(new ByteRange(0, 30), new ByteRange(40, 50)), ByteRange.coalesce(List.of(
                new ByteRange(40, 50), new ByteRange(10, 20), new ByteRange(0, 10), new ByteRange(15, 30))));
        assertTrue(new ByteRange(0, 10).covers(new ByteRange(2, 10)));
        assertThrows(IllegalArgumentException.class, () -> new ByteRange(5, 5));
        assertThrows(IllegalArgumentException.class, () -> new ByteRange(-1, 5));
        assertNull(new Announcement.Key(null).aes());
    }
}
