package io.fsp.server.ftp.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.server.ftp.FileRange;
import io.fsp.server.ftp.HashAlgorithm;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The argument grammars of XCRC and its kin, CKSM and RANG, as tables of accepted and refused arguments. */
class ChecksumArgumentsTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // argument                  | path                | offset | length
        "a.bin                       | a.bin               | 0      | -1",
        "dir/with space 1 2.txt      | dir/with space 1 2.txt | 0   | -1",
        "'\"a b.bin\"'               | a b.bin             | 0      | -1",
        "'\"a b.bin\"   '            | a b.bin             | 0      | -1",
        "'\"a b.bin\" 10 20'         | a b.bin             | 10     | 10",
        "'\"a\"  0   9223372036854775807 ' | a             | 0      | 9223372036854775807",
        "a\"b\"                      | a\"b\"              | 0      | -1",
    })
    void readsXChecksumArguments(String argument, String path, long offset, long length) {
        assertEquals(new ChecksumArguments.PathAndRange(path, new FileRange(offset, length)),
                ChecksumArguments.xChecksum(argument));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"a.bin", "\"\"", "\"\" 1 2", "\"a\" 5", "\"a\" 5 5", "\"a\" 9 3", "\"a\" x y", "\"a\"1 2",
        "\"a\" 1 2 3", "\"a\" -1 2", "\"a\" 0 99999999999999999999", "\"a\" 0 1x"})
    void refusesMalformedXChecksumArguments(String argument) {
        assertThrows(IllegalArgumentException.class, () -> ChecksumArguments.xChecksum(argument));
    }

    @Test
    void readsCksmArguments() {
        assertEquals(new ChecksumArguments.Cksm(HashAlgorithm.ADLER32, FileRange.WHOLE, "a b.bin"),
                ChecksumArguments.cksm("adler32 0 -1 a b.bin"));
        assertEquals(new ChecksumArguments.Cksm(HashAlgorithm.SHA_512, new FileRange(5, 0), " lead"),
                ChecksumArguments.cksm("SHA512   5  0  lead"));
        assertEquals(new ChecksumArguments.Cksm(HashAlgorithm.CRC32, new FileRange(7, FileRange.TO_END), "/x"),
                ChecksumArguments.cksm("Crc32 7 -1 /x"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "MD5", "MD5 0 -1", "MD5 0 -1 ", " MD5 0 -1 a", "MD5 -1 -1 a", "MD5 0 -2 a", "MD5 x -1 a",
        "SHA-256 0 -1 a", "BLAKE3 0 -1 a", "MD5 0 99999999999999999999 a", "MD5 9223372036854775807 1 a"})
    void refusesMalformedCksmArguments(String argument) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChecksumArguments.cksm(argument));
        assertTrue(e.getMessage().contains("expected"), e.getMessage());
    }

    @Test
    void readsRangArguments() {
        assertEquals(Optional.of(new FileRange(0, 50)), ChecksumArguments.rang("0 49"));
        assertEquals(Optional.of(new FileRange(5, 1)), ChecksumArguments.rang(" 5  5 "));
        assertEquals(Optional.empty(), ChecksumArguments.rang("1 0"), "the draft's reset");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1", "a b", "5 3", "-1 5", "0 9223372036854775807", "1 2 3", "0 99999999999999999999"})
    void refusesMalformedRangArguments(String argument) {
        assertThrows(IllegalArgumentException.class, () -> ChecksumArguments.rang(argument));
    }
}
