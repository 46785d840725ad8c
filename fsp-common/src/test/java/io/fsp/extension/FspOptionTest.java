package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every FSPO key: written then read back, refused out of its bounds, and named in docs/protocol.md's FSPO table. */
class FspOptionTest {
    /** Per key: values it takes (the first as written back), then values it refuses (out of bounds, malformed). */
    private static final Map<String, List<List<String>>> SAMPLES = Map.ofEntries(
            Map.entry("block-size", List.of(List.of("auto", "4096", "16777216", "1m", "64k"), List.of("4095", "16777217", "0", "2g", "x"))),
            Map.entry("compression", List.of(List.of("off", "1", "19", "zstd"), List.of("20", "-1", "zstd:x"))),
            Map.entry("cipher", List.of(List.of("aes-256-gcm", "aes-128-gcm", "none"), List.of("rot13", "aes-192-gcm"))),
            Map.entry("checksum", List.of(List.of("crc32c", "adler32", "crc32", "md5", "sha1", "sha256", "blake3"), List.of("nope"))),
            Map.entry("digest", List.of(List.of("sha256", "blake3", "md5"), List.of("nope"))),
            Map.entry("strategy", List.of(List.of("fcfs", "cyclic", "partitioned"), List.of("random"))),
            Map.entry("include-direct", List.of(List.of("off", "on"), List.of("maybe"))),
            Map.entry("streams", List.of(List.of("4", "1", "64"), List.of("0", "65", "x"))),
            Map.entry("use-relays", List.of(List.of("on", "off"), List.of("2"))),
            Map.entry("replicas", List.of(List.of("1", "3"), List.of("0", "4"))),
            Map.entry("retain", List.of(List.of("off", "1m", "7d", "90m"), List.of("59s", "0s", "7", "-1d"))),
            Map.entry("probe", List.of(List.of("off", "on"), List.of("sometimes"))),
            Map.entry("near-sender", List.of(List.of("40", "12.5", "60000"), List.of("0", "60001", "-5"))),
            Map.entry("near-client", List.of(List.of("40", "0.5"), List.of("0", "NaN"))),
            Map.entry("relays", List.of(List.of("3", "1", "64"), List.of("0", "65"))),
            Map.entry("client-probe", List.of(List.of("40000", "1", "65535"), List.of("0", "65536"))),
            Map.entry("meridian-entry", List.of(List.of("127.0.0.1:7400", "[::1]:7400"), List.of("relay.example:7400", "127.0.0.1"))));

    @Test
    void everyKeyRoundTripsAndRefusesWhatIsOutOfBounds() {
        for (FspOption<?> key : FspOption.all()) {
            List<List<String>> samples = SAMPLES.get(key.name());
            assertTrue(samples != null, key + ": no samples in this test (add them)");
            for (String good : samples.get(0)) {
                roundTrips(key, good);
            }
            assertEquals(samples.get(0).get(0), written(key, samples.get(0).get(0)), key + ": the first sample as written");
            for (String bad : samples.get(1)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> key.parse(bad), key + "=" + bad);
                assertTrue(e.getMessage().contains("(expected: "), e.getMessage());
                assertThrows(IllegalArgumentException.class, () -> FspOptions.parse(key.name() + "=" + bad), key + "=" + bad);
            }
            if (key.isTransferOption()) {
                roundTrips(key, defaultText(key));
            }
        }
        assertEquals(SAMPLES.keySet(), names(FspOption.all()), "a sample for each key, and a key for each sample");
    }

    @Test
    void typedValuesOutOfBoundsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> FspOption.REPLICAS.check(FspOption.MAX_REPLICAS + 1));
        assertThrows(IllegalArgumentException.class, () -> FspOption.BLOCK_SIZE.check(FspOption.MIN_BLOCK_SIZE - 1));
        assertThrows(IllegalArgumentException.class, () -> FspOption.STREAMS.check(0));
        assertThrows(IllegalArgumentException.class, () -> FspOption.CIPHER.check(192));
        assertEquals(3, FspOption.REPLICAS.check(3));
        assertEquals("replicas: 4 (expected: 1..3)", assertThrows(IllegalArgumentException.class,
                () -> FspOptions.NONE.with(FspOption.REPLICAS, 4)).getMessage());
    }

    /** The FSPO table of docs/protocol.md §1 names exactly the keys FSPO takes. */
    @Test
    void everyKeyIsInTheProtocolsTable() throws IOException {
        String doc = Files.readString(Path.of("../docs/protocol.md"));
        int start = doc.indexOf("**`FSPO [key=value");
        assertTrue(start >= 0, "the FSPO paragraph of docs/protocol.md");
        int table = doc.indexOf("| key | values | default |", start);
        int end = doc.indexOf("\n\n", table);
        Set<String> documented = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| ((?:`[a-z-]+`(?:, )?)+) \\|").matcher(doc.substring(table, end));
        while (row.find()) {
            Matcher key = Pattern.compile("`([a-z-]+)`").matcher(row.group(1));
            while (key.find()) {
                documented.add(key.group(1));
            }
        }
        assertEquals(names(FspOption.all()), documented);
    }

    private static <T> void roundTrips(FspOption<T> key, String text) {
        T value = key.parse(text);
        String written = key.format(value);
        assertEquals(value, key.parse(written), key + "=" + text);
        assertEquals(written, key.format(key.check(value)), key + "=" + text);
        assertEquals(written, FspOptions.parse(key.pair(value)).words().get(0).substring(key.name().length() + 1));
    }

    private static <T> String written(FspOption<T> key, String text) {
        return key.format(key.parse(text));
    }

    private static <T> String defaultText(FspOption<T> key) {
        return key.format(key.defaultValue());
    }

    private static Set<String> names(List<FspOption<?>> keys) {
        Set<String> names = new TreeSet<>();
        keys.forEach(k -> names.add(k.name()));
        return names;
    }
}
