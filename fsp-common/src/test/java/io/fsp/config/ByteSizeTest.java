package io.fsp.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one parser of sizes: configuration, options, FSPO block-size and the benchmarks all read sizes with it. */
class ByteSizeTest {
    @Test
    void takesBytesAndBinaryUnits() {
        assertEquals(1048576, ByteSize.parse("1048576").bytes());
        assertEquals(4 << 10, ByteSize.parse("4k").bytes());
        assertEquals(4 << 10, ByteSize.parse("4kib").bytes());
        assertEquals(4 << 20, ByteSize.parse("4M").bytes());
        assertEquals(4 << 20, ByteSize.parse("4MiB").bytes());
        assertEquals(4 << 20, ByteSize.parse("4mb").bytes());
        assertEquals(2L << 30, ByteSize.parse("2g").bytes());
        assertEquals(1L << 40, ByteSize.parse(" 1 T ").bytes());
        assertEquals(0, ByteSize.parse("0").bytes());
    }

    @Test
    void limitsAreALong() {
        assertEquals(8191L << 50, ByteSize.parse("8387584T").bytes());
        assertEquals("'8388608T' (expected: a size below 8192P)",
                assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("8388608T")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("99999999999999999999"));
        assertThrows(IllegalArgumentException.class, () -> new ByteSize(-1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "k", "-1", "+1", "1.5M", "1P", "1kk", "4 m b x", "0x10"})
    void refusesTheRestNamingTheValue(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(text));
        assertEquals("'" + text + "' (expected: a size such as 1048576, 64K, 512M, 2G)", e.getMessage());
    }

    @Test
    void printsTheLargestWholeUnit() {
        assertEquals("32M", ByteSize.parse("33554432").toString());
        assertEquals("1025", new ByteSize(1025).toString());
        assertEquals("0", new ByteSize(0).toString());
    }

    @Test
    void sizesAreBinaryMultiplesAndPrintInTheLargestUnitThatDividesThem() {
        assertEquals(2L << 30, ByteSize.parse("2G").bytes());
        assertEquals(512L << 20, ByteSize.parse("512MiB").bytes());
        assertEquals(64 << 10, ByteSize.parse("64k").bytes());
        assertEquals(1000, ByteSize.parse("1000").bytes());
        assertEquals(1L << 40, ByteSize.parse("1 TB").bytes());
        assertEquals("32M", ByteSize.parse("33554432").toString());
        assertEquals("1000", ByteSize.parse("1000").toString());
        assertEquals("0", new ByteSize(0).toString());
        for (String bad : List.of("", "-5", "2X", "1.5G", "9999999999T", "G")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("'" + bad + "' (expected: a size"), e.getMessage());
        }
    }
}
