package io.fsp.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one parser of durations: the configuration form, the compact form of FSPO and {@code fsp evacuate}, and printing. */
class DurationsTest {
    @Test
    void configurationFormTakesUnitsAnyCaseAndIso() {
        assertEquals(Duration.ofMillis(1500), Durations.parse("1500ms"));
        assertEquals(Duration.ofSeconds(30), Durations.parse(" 30 s "));
        assertEquals(Duration.ofMinutes(30), Durations.parse("30M"));
        assertEquals(Duration.ofHours(2), Durations.parse("2h"));
        assertEquals(Duration.ofDays(7), Durations.parse("7d"));
        assertEquals(Duration.ofHours(2), Durations.parse("pt2h"));
        assertEquals(Duration.ZERO, Durations.parse("0s"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "s", "30", "30x", "-5s", "1.5h", "5 minutes", "P"})
    void configurationFormRefusesTheRestNamingTheValue(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
        assertEquals("'" + text + "' (expected: a duration such as 500ms, 30s, 5m, 2h, 7d)", e.getMessage());
    }

    @Test
    void configurationFormRefusesWhatADurationCannotHold() {
        // a number past a long, and days past Duration's seconds: a clear error, not an exception of another kind
        assertEquals("'99999999999999999999s' (expected: a duration below 292 billion years)",
                assertThrows(IllegalArgumentException.class, () -> Durations.parse("99999999999999999999s")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("9223372036854775807d"));
    }

    @Test
    void compactFormIsDigitsAndOneUnit() {
        assertEquals(Duration.ofSeconds(1), Durations.parseWhole("1s"));
        assertEquals(Duration.ofMinutes(90), Durations.parseWhole("90m"));
        assertEquals(Duration.ofHours(2), Durations.parseWhole("2h"));
        assertEquals(Duration.ofDays(7), Durations.parseWhole("7d"));
        assertEquals(Duration.ZERO, Durations.parseWhole("0m"));
        assertEquals(Duration.ofDays(999_999_999), Durations.parseWhole("999999999d"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "7", "d", "7D", "7 d", " 7d", "1500ms", "pt2h", "-1d", "+1d", "1234567890s", "7w"})
    void compactFormRefusesTheRest(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parseWhole(text));
        assertEquals("'" + text + "' (expected: digits and s, m, h or d, e.g. 20m or 7d)", e.getMessage());
    }

    @Test
    void formatUsesTheLargestWholeUnit() {
        assertEquals("7d", Durations.format(Duration.ofDays(7)));
        assertEquals("36h", Durations.format(Duration.ofHours(36)));
        assertEquals("90m", Durations.format(Duration.ofMinutes(90)));
        assertEquals("61s", Durations.format(Duration.ofSeconds(61)));
        assertEquals("0s", Durations.format(Duration.ZERO));
        assertEquals(Duration.ofMinutes(90), Durations.parseWhole(Durations.format(Duration.ofMinutes(90))));
    }

    @Test
    void durationsTakeAnyCase() {
        assertEquals(Duration.ofMinutes(30), Durations.parse("30M"));
        assertEquals(Duration.ofMillis(1500), Durations.parse("1500ms"));
        assertEquals(Duration.ofHours(2), Durations.parse("pt2h"));
        assertEquals(Duration.ofDays(7), Durations.parse("7d"));
    }
}
